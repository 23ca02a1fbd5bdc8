package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentCallCodec;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.BadCall;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import io.drover.server.auth.Principal;
import java.time.Duration;

/** {@link AgentCalls} over jobs: each call is a job on one agent, recorded with a system principal, awaited. */
public final class JobAgentCalls implements AgentCalls {
    private final JobService jobs;
    private final Duration timeout;
    private final Principal caller;

    public JobAgentCalls(JobService jobs, Duration timeout, Principal caller) {
        this.jobs = jobs;
        this.timeout = timeout;
        this.caller = caller;
    }

    @Override
    public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call) {
        return call(agentId, call, timeout);
    }

    @Override
    public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, Duration timeout) {
        AgentCallCodec.WireCall wire = AgentCallCodec.encode(call);
        String fun = wire.fun();
        JobStarted started;
        try {
            started = jobs.start(caller, new JobRequest(agentId, "list", fun, wire.args().positional(),
                    wire.args().keywords(), (int) timeout.toSeconds()));
        } catch (RuntimeException e) {
            return Outcome.failed("agent " + agentId + " cannot be sent " + fun + ": " + e.getMessage());
        }
        JobResult result = jobs.await(caller, started.jid(), timeout);
        JobResult.Return ret = result.returns().get(agentId);
        if (ret == null) {
            return Outcome.unanswered(started.jid(), "agent " + agentId + " did not answer " + fun + " within "
                    + timeout.toSeconds() + " s (job " + started.jid() + ")");
        }
        String text = ret.ret() instanceof String s ? s : io.drover.server.store.Sql.toJson(ret.ret());
        if (text.length() > 2_000) {
            text = text.substring(0, 2_000) + "…";
        }
        if (!ret.success() || ret.retcode() != 0) {
            return new Outcome<>(false, null, started.jid(), text);
        }
        try {
            return new Outcome<>(true, AgentCallCodec.decodeResult(call, ret.ret(), ret.retcode()), started.jid(), text);
        } catch (BadCall e) {
            return new Outcome<>(false, null, started.jid(), "agent " + agentId + " " + e.getMessage());
        }
    }
}

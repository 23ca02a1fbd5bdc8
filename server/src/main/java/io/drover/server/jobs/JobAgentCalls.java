package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentCallCodec;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.BadCall;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import io.drover.server.auth.Principal;
import java.time.Duration;

/**
 * {@link AgentCalls} over jobs: each call is a job on one agent, recorded with a system principal (limited to the
 * businesses of the work, whose job checks then refuse any agent outside them), awaited. A call
 * not answered within {@link #RESEND} is sent again under the same job id until it is answered or times out: an agent
 * that was moving between servers of a cluster when it was first sent gets it, and runs it once.
 */
public final class JobAgentCalls implements AgentCalls {
    static final Duration RESEND = Duration.ofSeconds(5);

    private final JobService jobs;
    private final Duration timeout;
    private final Principal caller;

    public JobAgentCalls(JobService jobs, Duration timeout, Principal caller) {
        this.jobs = jobs;
        this.timeout = timeout;
        this.caller = caller;
    }

    @Override
    public AgentCalls forBusinesses(java.util.Set<Long> bizIds) {
        return new JobAgentCalls(jobs, timeout, caller.limitedTo(bizIds));
    }

    @Override
    public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options) {
        Duration wait = options.timeoutOr(timeout);
        if (options.resumeJid() != null) {
            return resume(agentId, options.resumeJid(), call, wait);
        }
        AgentCall<?> shown = options.shown() == null ? call : options.shown();
        if (shown.getClass() != call.getClass()) {
            return Outcome.failed("a call is shown as " + shown.getClass().getSimpleName() + " but sent as "
                    + call.getClass().getSimpleName());
        }
        JobStarted started;
        try {
            started = jobs.start(caller, agentId, "list", call, shown, (int) wait.toSeconds(),
                    s -> options.sending().accept(s.jid()));
        } catch (RuntimeException e) {
            return Outcome.failed("agent " + agentId + " cannot be sent " + AgentCallCodec.encode(call).fun() + ": " + e.getMessage());
        }
        return answer(agentId, call, started.jid(), wait);
    }

    private <R extends AgentResult> Outcome<R> resume(String agentId, String jid, AgentCall<R> call, Duration timeout) {
        try {
            jobs.awaitReturn(caller, jid, agentId, Duration.ZERO); // refused when its agent is no longer in the caller's businesses
            jobs.redeliver(jid, agentId);
        } catch (RuntimeException e) {
            return Outcome.failed("job " + jid + " cannot be resumed on agent " + agentId + ": " + e.getMessage());
        }
        return answer(agentId, call, jid, timeout);
    }

    @Override
    public boolean cancel(String agentId, String jid) {
        try {
            return jobs.cancel(caller, jid, java.util.List.of(agentId)).cancelled() > 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private <R extends AgentResult> Outcome<R> answer(String agentId, AgentCall<R> call, String jid, Duration timeout) {
        String fun = AgentCallCodec.encode(call).fun();
        long deadline = System.nanoTime() + timeout.toNanos();
        JobResult.Return ret;
        while (true) {
            long left = deadline - System.nanoTime();
            ret = jobs.awaitReturn(caller, jid, agentId, Duration.ofNanos(Math.max(0, Math.min(left, RESEND.toNanos()))))
                    .orElse(null);
            if (ret != null || left <= RESEND.toNanos() || Thread.currentThread().isInterrupted()) {
                break;
            }
            jobs.redeliver(jid, agentId);
        }
        if (ret == null) {
            return Outcome.unanswered(jid, "agent " + agentId + " did not answer " + fun + " within "
                    + timeout.toSeconds() + " s (job " + jid + ")");
        }
        String text = ret.ret() instanceof String s ? s : io.drover.server.store.Sql.toJson(ret.ret());
        if (text.length() > 2_000) {
            text = text.substring(0, 2_000) + "…";
        }
        if (!ret.success() || ret.retcode() != 0) {
            return new Outcome<>(false, null, jid, text);
        }
        try {
            return new Outcome<>(true, AgentCallCodec.decodeResult(call, ret.ret(), ret.retcode()), jid, text);
        } catch (BadCall e) {
            return new Outcome<>(false, null, jid, "agent " + agentId + " " + e.getMessage());
        }
    }
}

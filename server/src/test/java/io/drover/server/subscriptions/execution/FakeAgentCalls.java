package io.drover.server.subscriptions.execution;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentCallCodec;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.ProcessOp;
import io.drover.model.agentapi.ProcessStatus;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/**
 * Agents that answer every call as a healthy agent would (nothing installed, no process running until started),
 * unless a rule for an agent and a function says otherwise; every call is recorded. Each call gets a job id before
 * it is answered; a call resumed under a job id it had is answered as the agent's journal would (the call is not
 * run again), and recorded in {@link #resumed}.
 */
final class FakeAgentCalls implements AgentCalls {
    record Call(String agentId, AgentCall<?> call) {
        String fun() {
            return AgentCallCodec.encode(call).fun();
        }
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<String> resumed = new CopyOnWriteArrayList<>();
    private final Map<String, Call> byJid = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger jobs = new java.util.concurrent.atomic.AtomicInteger();
    private final Map<String, BiFunction<String, AgentCall<?>, Outcome<?>>> rules = new ConcurrentHashMap<>();

    /** The businesses the calls were limited to, each time they were. */
    final List<java.util.Set<Long>> businesses = new CopyOnWriteArrayList<>();

    @Override
    public AgentCalls forBusinesses(java.util.Set<Long> bizIds) {
        businesses.add(bizIds);
        return this;
    }

    /** From now on, {@code fun} on {@code agentId} answers with what {@code rule} gives. */
    void when(String agentId, String fun, BiFunction<String, AgentCall<?>, Outcome<?>> rule) {
        rules.put(agentId + " " + fun, rule);
    }

    List<String> funs(String agentId) {
        return calls.stream().filter(c -> c.agentId().equals(agentId)).map(Call::fun).toList();
    }

    @Override
    public <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options) {
        if (options.resumeJid() != null) {
            return resume(agentId, options.resumeJid(), call);
        }
        calls.add(new Call(agentId, call));
        String jid = "j" + jobs.incrementAndGet();
        byJid.put(jid, new Call(agentId, call));
        options.sending().accept(jid);
        return answer(agentId, call, jid);
    }

    @SuppressWarnings("unchecked")
    private <R extends AgentResult> Outcome<R> resume(String agentId, String jid, AgentCall<R> call) {
        Call sent = byJid.get(jid);
        if (sent == null || !sent.agentId().equals(agentId) || !sent.call().equals(call)) {
            throw new IllegalStateException("job " + jid + " was not " + AgentCallCodec.encode(call).fun() + " on " + agentId);
        }
        resumed.add(jid);
        return new Outcome<>(true, (R) healthy(call), jid, "ok (resumed)");
    }

    @SuppressWarnings("unchecked")
    private <R extends AgentResult> Outcome<R> answer(String agentId, AgentCall<R> call, String jid) {
        BiFunction<String, AgentCall<?>, Outcome<?>> rule = rules.get(agentId + " " + AgentCallCodec.encode(call).fun());
        if (rule != null) {
            return (Outcome<R>) rule.apply(agentId, call);
        }
        return new Outcome<>(true, (R) healthy(call), jid, "ok");
    }

    private static AgentResult healthy(AgentCall<?> call) {
        return switch (call) {
            case AgentCall.Ping p -> new AgentResult.Pong();
            case AgentCall.Echo e -> new AgentResult.Text(e.text());
            case AgentCall.AgentVersion v -> new AgentResult.Text("0.1.0");
            case AgentCall.GetGrains g -> new AgentResult.Grains(Map.of());
            case AgentCall.FindJob f -> new AgentResult.RunningJob(Map.of());
            case AgentCall.KillJob k -> new AgentResult.JobKilled(k.jid(), false, 0);
            case AgentCall.RunCommand r -> new AgentResult.CommandOutput("", 0);
            case AgentCall.RunScript r -> new AgentResult.CommandOutput("", 0);
            case AgentCall.WriteFile w -> new AgentResult.FileWritten(w.path(), w.content().length(), "md5");
            case AgentCall.FetchFile f -> new AgentResult.FileWritten(f.path(), 1, "md5");
            case AgentCall.RemoveFile r -> new AgentResult.FileRemoved(r.path(), true);
            case AgentCall.UsedPorts u -> new AgentResult.Ports(List.of(22));
            case AgentCall.InstallPackage i -> new AgentResult.PackageInstalled(i.targetDir(), 3, i.sha256());
            case AgentCall.QueryPackage q -> new AgentResult.InstalledPackage(q.targetDir(), false, "");
            case AgentCall.UpgradeAgent u -> new AgentResult.UpgradeHandedOver("0.1.0", u.version(), "upgrade.log");
            case AgentCall.RemovePlugin r -> new AgentResult.PluginRemoved(r.targetDir(), true);
            case AgentCall.RegisterProcess r -> new AgentResult.ProcessRegistered(r.spec().name(), true);
            case AgentCall.UnregisterProcess u -> new AgentResult.ProcessUnregistered(u.name(), true);
            case AgentCall.OperateProcess o -> new AgentResult.ProcessState(o.name(), o.op(),
                    o.op() == ProcessOp.QUERY || o.op() == ProcessOp.STOP ? ProcessStatus.TERMINATED : ProcessStatus.RUNNING,
                    null, null, true, null);
            case AgentCall.RunPlan r -> new AgentResult.PlanFinished(Map.of("ErrorCode", 0));
            case AgentCall.RunOperation o -> new AgentResult.OperationOutcome(true, Map.of(), null);
        };
    }
}

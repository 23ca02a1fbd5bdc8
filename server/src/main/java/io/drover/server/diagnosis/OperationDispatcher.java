package io.drover.server.diagnosis;

import io.drover.core.diagnosis.DiagnosisDocuments;
import io.drover.core.diagnosis.Operation;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import io.drover.model.agentapi.OperationRequest;
import io.drover.model.agentapi.ProcessOp;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.CallOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs one operation for one host: KubeDiag's processors on the host's agent ({@code diag.operation}), Drover's
 * actions through the agent's supervisor ({@code proc.operate}) or the subscriptions that deploy to the host.
 */
final class OperationDispatcher {
    /** Time beyond the operation's own timeout for the call to come back. */
    static final Duration CALL_MARGIN = Duration.ofSeconds(15);

    /** What running the operation gave: done (succeeded or failed, with results), or the agent could not be reached. */
    sealed interface Result {
        record Done(boolean succeeded, Map<String, String> results, String error) implements Result {
        }

        record Unreachable(String reason) implements Result {
        }
    }

    /**
     * Re-runs the subscriptions of business {@code bizId} that deploy to a host and waits for them (the
     * {@code rerunSubscriptions} action); the tasks it starts go to {@code how.sending()}, and a resumed node gets
     * them back in {@code how.sentJid()} to wait for instead of starting new ones.
     */
    interface SubscriptionReruns {
        Result.Done rerun(long bizId, long hostId, Duration timeout, Sending how);
    }

    private final AgentCalls agents;
    private final SubscriptionReruns reruns;

    OperationDispatcher(AgentCalls agents, SubscriptionReruns reruns) {
        this.agents = agents;
        this.reruns = reruns;
    }

    /**
     * How the node's agent call goes out: {@code sentJid} is the job a stopped server sent for this node (its answer
     * is asked for, the node is not run again), or null; {@code sending} is given a new call's job id before the agent
     * gets it. For {@code rerunSubscriptions} the checkpoint is the tasks started instead ({@link HostSubscriptions}).
     */
    record Sending(String sentJid, java.util.function.Consumer<String> sending) {
        static final Sending NEW = new Sending(null, jid -> { });
    }

    /** Runs one operation of a diagnosis of business {@code bizId}: its calls reach only agents of that business. */
    Result run(String agentId, long bizId, long hostId, Operation operation, Map<String, String> data, Sending how) {
        Duration timeout = Duration.ofSeconds(operation.timeoutSeconds());
        AgentCalls agents = this.agents.forBusinesses(java.util.Set.of(bizId));
        if (operation.droverAction() != null) {
            return action(agents, agentId, bizId, hostId, operation, data, timeout, how);
        }
        AgentCalls.Outcome<AgentResult.OperationOutcome> outcome = send(agents, agentId, new AgentCall.RunOperation(run(operation, data)),
                timeout.plus(CALL_MARGIN), how);
        if (!outcome.answered()) {
            return new Result.Unreachable(outcome.text());
        }
        if (!outcome.ok()) {
            return new Result.Done(false, Map.of(), outcome.text());
        }
        AgentResult.OperationOutcome result = outcome.result();
        return new Result.Done(result.succeeded(), result.results(), result.error());
    }

    static OperationRequest run(Operation op, Map<String, String> data) {
        return switch (op.processor()) {
            case OperationRequest.SCRIPT_RUNNER -> new OperationRequest(op.name(), OperationRequest.SCRIPT_RUNNER, op.scriptRunner().script(),
                    op.scriptRunner().argKeys(), op.scriptRunner().operationResultKey(), null, null, null, null, null, null, data,
                    op.timeoutSeconds());
            case OperationRequest.FUNCTION -> new OperationRequest(op.name(), OperationRequest.FUNCTION, null, null, null,
                    op.function().codeSource(), op.function().runtime(), null, null, null, null, data, op.timeoutSeconds());
            default -> new OperationRequest(op.name(), OperationRequest.HTTP_SERVER, null, null, null, null, null, op.httpServer().scheme(),
                    op.httpServer().address(), op.httpServer().port(), op.httpServer().path(), data, op.timeoutSeconds());
        };
    }

    private static <R extends AgentResult> AgentCalls.Outcome<R> send(AgentCalls agents, String agentId, AgentCall<R> call,
                                                                      Duration timeout, Sending how) {
        CallOptions options = CallOptions.within(timeout);
        return agents.call(agentId, call, how.sentJid() != null ? options.resuming(how.sentJid()) : options.withSending(how.sending()));
    }

    private Result action(AgentCalls agents, String agentId, long bizId, long hostId, Operation operation, Map<String, String> data,
                          Duration timeout, Sending how) {
        Operation.DroverAction action = operation.droverAction();
        if (action.action() == Operation.Action.RERUN_SUBSCRIPTIONS) {
            return reruns.rerun(bizId, hostId, timeout, how);
        }
        String plugin = data.get(action.pluginKey());
        if (plugin == null || plugin.isBlank()) {
            return new Result.Done(false, Map.of(), DiagnosisDocuments.actionName(action.action()) + ": the data has no '"
                    + action.pluginKey() + "' naming the plugin (give it as a parameter or a trigger's injected label)");
        }
        ProcessOp op = action.action() == Operation.Action.RESTART_PLUGIN ? ProcessOp.RESTART : ProcessOp.QUERY;
        AgentCalls.Outcome<AgentResult.ProcessState> outcome = send(agents, agentId, new AgentCall.OperateProcess(plugin, op),
                timeout.plus(CALL_MARGIN), how);
        if (!outcome.answered()) {
            return new Result.Unreachable(outcome.text());
        }
        if (!outcome.ok()) {
            return new Result.Done(false, Map.of(), "proc.operate " + plugin + " " + op + ": " + outcome.text());
        }
        AgentResult.ProcessState state = outcome.result();
        Map<String, String> results = new LinkedHashMap<>();
        results.put("plugin." + plugin + ".status", String.valueOf(state.status()));
        if (state.pid() != null) {
            results.put("plugin." + plugin + ".pid", String.valueOf(state.pid()));
        }
        String verb = op == ProcessOp.RESTART ? "after a restart " : "";
        return new Result.Done(state.running(), results, state.running() ? null : "plugin " + plugin + " is " + verb
                + String.valueOf(state.status()).toLowerCase(java.util.Locale.ROOT));
    }
}

package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;

/**
 * How the server runs a typed call on one agent and waits for its answer, within a timeout: the seam subscriptions
 * (and execution plans and diagnosis after them) use; {@link JobAgentCalls} is the real side, tests have a fake.
 */
public interface AgentCalls {
    /** What came back: success, the typed result (when it succeeded), the job, and a one-line text for logs and errors. */
    record Outcome<R extends AgentResult>(boolean ok, R result, String jid, String text) {
        public static <R extends AgentResult> Outcome<R> failed(String text) {
            return new Outcome<>(false, null, null, text);
        }
    }

    <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call);
}

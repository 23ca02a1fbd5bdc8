package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;

/**
 * How the server runs a typed call on one agent and waits for its answer, within a timeout: the seam subscriptions
 * (and execution plans and diagnosis after them) use; {@link JobAgentCalls} is the real side, tests have a fake.
 */
public interface AgentCalls {
    /**
     * What came back: success, the typed result (when it succeeded), the job, a one-line text for logs and errors,
     * and whether the agent answered at all (false: it could not be sent the call, or did not answer in time).
     */
    record Outcome<R extends AgentResult>(boolean ok, R result, String jid, String text, boolean answered) {
        public Outcome(boolean ok, R result, String jid, String text) {
            this(ok, result, jid, text, true);
        }

        public static <R extends AgentResult> Outcome<R> failed(String text) {
            return new Outcome<>(false, null, null, text, false);
        }

        public static <R extends AgentResult> Outcome<R> unanswered(String jid, String text) {
            return new Outcome<>(false, null, jid, text, false);
        }
    }

    /**
     * Runs {@code call} on one agent as {@code options} say (its timeout, who hears its job id, what it is shown as,
     * the earlier job it resumes) and waits for the answer. An agent runs a job id at most once (its journal), so a
     * resumed call never runs twice.
     */
    <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, CallOptions options);

    /**
     * These calls limited to agents of these businesses (as they are when a call is sent): work one business owns
     * (a subscription's task, a diagnosis of one of its hosts) can reach no agent of another.
     */
    AgentCalls forBusinesses(java.util.Set<Long> bizIds);

    /**
     * Stops a call sent as job {@code jid} on its agent: the job's processes are killed there ({@code
     * saltutil.kill_job}) and the agent is recorded CANCELLED; the call's caller gets the killed return (a failure).
     * A caller that gives up on a call (a cancelled diagnosis, say) calls this: an interrupted wait alone stops only
     * the server's wait, and the process runs on. False when the call had already finished or could not be stopped.
     */
    default boolean cancel(String agentId, String jid) {
        return false;
    }
}

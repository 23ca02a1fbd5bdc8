package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import io.drover.model.agentapi.AgentResult;
import java.util.function.Consumer;

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

    <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call);

    /**
     * These calls limited to agents of these businesses (as they are when a call is sent): work one business owns
     * (a subscription's task, a diagnosis of one of its hosts) can reach no agent of another.
     */
    AgentCalls forBusinesses(java.util.Set<Long> bizIds);

    /** As {@link #call(String, AgentCall)}, waiting up to {@code timeout} for this call (a diagnosis operation's own). */
    default <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, java.time.Duration timeout) {
        return call(agentId, call);
    }

    /**
     * As {@link #call(String, AgentCall)}; {@code sending} is given the call's job id once the job is stored and
     * before the agent is sent it, so that the caller can record it and {@link #resume} the call after a stop.
     */
    default <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, Consumer<String> sending) {
        return call(agentId, call);
    }

    /**
     * The answer to a call sent earlier as job {@code jid} (by this server before a stop, or by another server of
     * the cluster): its stored return, else the same job sent again under the same id. An agent runs a job id at
     * most once (its journal), so a call resumed this way never runs twice.
     */
    default <R extends AgentResult> Outcome<R> resume(String agentId, String jid, AgentCall<R> call) {
        throw new UnsupportedOperationException("this agent seam cannot resume job " + jid);
    }

    /**
     * As {@link #call(String, AgentCall, Consumer)} for a call that carries a secret: {@code shown} (the same call with
     * the secret redacted) is what the job is stored, evented and answered with; only the agent is sent {@code call}.
     */
    default <R extends AgentResult> Outcome<R> callWithSecret(String agentId, AgentCall<R> call, AgentCall<R> shown,
                                                              Consumer<String> sending) {
        throw new UnsupportedOperationException("this agent seam cannot carry secrets");
    }

    /** As {@link #call(String, AgentCall, Consumer)}, waiting up to {@code timeout}. */
    default <R extends AgentResult> Outcome<R> call(String agentId, AgentCall<R> call, java.time.Duration timeout,
                                                    Consumer<String> sending) {
        return call(agentId, call, timeout);
    }

    /**
     * Stops a call sent as job {@code jid} on its agent: the job's processes are killed there ({@code
     * saltutil.kill_job}) and the agent is recorded CANCELLED; the call's caller gets the killed return (a failure).
     * A caller that gives up on a call (a cancelled diagnosis, say) calls this: an interrupted wait alone stops only
     * the server's wait, and the process runs on. False when the call had already finished or could not be stopped.
     */
    default boolean cancel(String agentId, String jid) {
        return false;
    }

    /** As {@link #resume(String, String, AgentCall)}, waiting up to {@code timeout}. */
    default <R extends AgentResult> Outcome<R> resume(String agentId, String jid, AgentCall<R> call, java.time.Duration timeout) {
        return resume(agentId, jid, call);
    }
}

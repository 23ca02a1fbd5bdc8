package io.drover.server.jobs;

import io.drover.model.agentapi.AgentCall;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How {@link AgentCalls#call} sends one call: how long it waits, who hears its job id before it goes out, what it is
 * shown as when it carries a secret, and whether it resumes a job sent earlier. Built from {@link #defaults()} or
 * {@link #within(Duration)} and the {@code with…} steps; every option has one meaning for every seam.
 *
 * @param timeout  how long to wait for the answer (a seam answers a call it cannot wait for, under a second say,
 *                 with a failed outcome); null: the seam's own (its configured call timeout)
 * @param sending  given the call's job id once the job is stored and before the agent is sent it, so that the caller
 *                 can record it and resume the call after a stop
 * @param shown    the same call with its secret redacted: what the job is stored, evented and answered with (only the
 *                 agent is sent the call itself); null: the call carries no secret
 * @param resumeJid the job the call was sent as earlier (by this server before a stop, or by another server of the
 *                 cluster): its stored return, else the same job sent again under the same id; null: a new job
 */
public record CallOptions(Duration timeout, Consumer<String> sending, AgentCall<?> shown, String resumeJid) {
    private static final Consumer<String> NOBODY = jid -> { };

    public CallOptions {
        sending = sending == null ? NOBODY : sending;
    }

    /** A new job, waited for as long as the seam waits by default. */
    public static CallOptions defaults() {
        return new CallOptions(null, null, null, null);
    }

    /** A new job, waited for up to {@code timeout}. */
    public static CallOptions within(Duration timeout) {
        return new CallOptions(java.util.Objects.requireNonNull(timeout, "timeout"), null, null, null);
    }

    public CallOptions withSending(Consumer<String> sending) {
        return new CallOptions(timeout, sending, shown, resumeJid);
    }

    public CallOptions withShown(AgentCall<?> shown) {
        return new CallOptions(timeout, sending, shown, resumeJid);
    }

    public CallOptions resuming(String jid) {
        return new CallOptions(timeout, sending, shown, jid);
    }

    /** The timeout, or {@code fallback} when none was given. */
    public Duration timeoutOr(Duration fallback) {
        return timeout == null ? fallback : timeout;
    }
}

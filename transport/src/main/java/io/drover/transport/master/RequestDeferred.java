package io.drover.transport.master;

/**
 * Thrown by a {@link MasterHandler} that cannot act on a request now (its database cannot write: the disk is full):
 * the master sends no reply, so the minion's request times out and the minion sends it again later. Any reply,
 * even {@code false}, would tell an agent that its return was taken, and it would forget it.
 */
public final class RequestDeferred extends RuntimeException {
    public RequestDeferred(String message, Throwable cause) {
        super(message, cause);
    }
}

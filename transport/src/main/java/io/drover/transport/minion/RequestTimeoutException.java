package io.drover.transport.minion;

/** The master did not answer a request within the configured tries. */
public final class RequestTimeoutException extends RuntimeException {
    public RequestTimeoutException() {
        super("no answer from the master");
    }
}

package io.drover.transport.envelope;

/**
 * A publish load or a job return whose fields do not have Salt's types, or are over the limits: refused as a whole,
 * nothing of it is used.
 */
public final class MalformedEnvelopeException extends IllegalArgumentException {
    public MalformedEnvelopeException(String message) {
        super(message);
    }
}

package io.drover.transport.wire;

/** A frame that cannot be decoded or does not have the expected shape: dropped and logged, never fatal. */
public final class MalformedFrameException extends RuntimeException {
    public MalformedFrameException(String message) {
        super(message);
    }
}

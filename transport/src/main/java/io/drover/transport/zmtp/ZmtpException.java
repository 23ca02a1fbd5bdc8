package io.drover.transport.zmtp;

/** A peer broke the protocol or a limit; its connection is closed. {@link #kind()} is the metric label. */
public final class ZmtpException extends Exception {
    private final String kind;

    public ZmtpException(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** One of greeting, flags, oversize, frames, command, order, subscription, budget. */
    public String kind() {
        return kind;
    }
}

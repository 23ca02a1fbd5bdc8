package io.drover.transport.zmtp;

/** A peer broke the protocol or a limit; its connection is closed. {@link #kind()} is the metric label. */
public final class ZmtpException extends Exception {
    private final String kind;

    public ZmtpException(String kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** One of {@link ZmtpStats#PROTOCOL_ERROR_KINDS}. */
    public String kind() {
        return kind;
    }
}

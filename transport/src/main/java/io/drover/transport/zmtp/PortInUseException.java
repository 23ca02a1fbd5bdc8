package io.drover.transport.zmtp;

/** A listening port could not be bound because another process holds it. */
public final class PortInUseException extends RuntimeException {
    private final int port;

    public PortInUseException(String host, int port) {
        super("port " + port + " is already in use" + (host.equals("0.0.0.0") || host.equals("*") ? "" : " on " + host));
        this.port = port;
    }

    public int port() {
        return port;
    }
}

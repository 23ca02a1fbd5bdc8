package io.drover.core.diagnosis;

/** An operation set whose graph cannot be run, with a message that names the node or edge at fault. */
public final class GraphException extends RuntimeException {
    public GraphException(String message) {
        super(message, null, false, false);
    }
}

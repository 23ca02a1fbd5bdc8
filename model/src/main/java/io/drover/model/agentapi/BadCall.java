package io.drover.model.agentapi;

/** An agent call, or an agent's answer, that does not have the shape its function takes: the message names what. */
public final class BadCall extends IllegalArgumentException {
    public BadCall(String message) {
        super(message);
    }
}

package io.drover.core.agents;

/** An agent package, or its name, that cannot be handed out; the message says what is wrong in one line. */
public final class AgentPackageException extends RuntimeException {
    public AgentPackageException(String message) {
        super(message);
    }
}

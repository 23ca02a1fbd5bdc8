package io.drover.model.agentapi;

/** A function name that is not one of the agent's. */
public final class UnknownFunction extends IllegalArgumentException {
    public UnknownFunction(String fun) {
        super("'" + fun + "' is not available on this agent");
    }
}

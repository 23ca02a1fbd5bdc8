package io.drover.server.agentlink;

import io.drover.transport.master.AgentMode;
import io.drover.transport.master.KeyDecision;

/** What the agent link asks of the keys: decisions on presented keys, and each agent's accepted key and mode. */
public interface KeyDecisions {
    /** Decides on a presented key (recording a new one as pending, or accepting it under auto-accept or a token). */
    KeyDecision decide(String id, String publicPem, Object enrollToken);

    /** The accepted public key of an agent, or null when it is not accepted. */
    String acceptedKey(String id);

    void recordMode(String id, AgentMode mode);

    /** The mode last recorded for an agent; null when none is. */
    AgentMode mode(String id);
}

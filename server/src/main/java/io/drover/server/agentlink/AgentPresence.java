package io.drover.server.agentlink;

import java.util.Map;

/** What the agent link tells the agent registry: an agent was heard from, or sent its heartbeat (and grains). */
public interface AgentPresence {
    void seen(String id);

    void heartbeat(String id, Map<?, ?> data);
}

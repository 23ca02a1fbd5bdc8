package io.drover.server.subscriptions.planning;

import io.drover.server.agents.AgentRegistry;
import java.util.Map;

/** Which agent runs on which inventory host, and whether it answers now. */
public final class AgentDirectory {
    private final AgentRegistry agents;

    public AgentDirectory(AgentRegistry agents) {
        this.agents = agents;
    }

    /** Host id → agent id, for every agent linked to a host. */
    public Map<Long, String> agentsByHost() {
        return agents.agentsByHost();
    }

    public boolean online(String agentId) {
        return agentId != null && agents.online(agentId);
    }
}

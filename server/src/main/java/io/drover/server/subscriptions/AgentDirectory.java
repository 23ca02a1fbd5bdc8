package io.drover.server.subscriptions;

import io.drover.server.agents.AgentRegistry;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** Which agent runs on which inventory host, and whether it answers now. */
public final class AgentDirectory {
    private final Jdbi jdbi;
    private final AgentRegistry agents;

    public AgentDirectory(Jdbi jdbi, AgentRegistry agents) {
        this.jdbi = jdbi;
        this.agents = agents;
    }

    /** Host id → agent id, for every agent linked to a host. */
    public Map<Long, String> agentsByHost() {
        Map<Long, String> byHost = new HashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT id, bk_host_id FROM agent WHERE bk_host_id IS NOT NULL")
                .map((rs, ctx) -> Map.entry(rs.getLong("bk_host_id"), rs.getString("id")))
                .forEach(e -> byHost.put(e.getKey(), e.getValue())));
        return byHost;
    }

    public boolean online(String agentId) {
        return agentId != null && agents.online(agentId);
    }
}

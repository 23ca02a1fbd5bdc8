package io.drover.server.agentupgrade;

import io.drover.server.agents.AgentRegistry;
import java.util.Collection;
import java.util.Map;

/** The agents as the registry knows them from their sign-ins and heartbeats. */
public record RegistryAgents(AgentRegistry registry) implements AgentUpgradeService.Agents {
    @Override
    public boolean online(String id) {
        return registry.online(id);
    }

    @Override
    public String version(String id) {
        return registry.version(id);
    }

    @Override
    public String arch(String id) {
        return registry.grains(id).get("cpuarch") instanceof String arch ? arch : null;
    }

    @Override
    public Map<String, Long> businesses(Collection<String> ids) {
        return registry.businesses(ids);
    }
}

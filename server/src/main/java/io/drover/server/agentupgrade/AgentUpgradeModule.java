package io.drover.server.agentupgrade;

import io.drover.server.agentpackages.AgentPackageService;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.jobs.AgentCalls;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;

/** The agent upgrades' part: the service that upgrades agents in place, through calls on them. */
public final class AgentUpgradeModule implements AutoCloseable {

    /** What the module needs: {@code targets} resolves a job target to agents; {@code calls} runs the upgrade calls. */
    public record Needs(Jdbi jdbi, AgentUpgradeService.Targets targets, AgentCalls calls, AgentRegistry agents,
                        AgentPackageService packages, WorkLeaseStore leases, Clock clock) {
    }

    private final AgentUpgradeService service;

    public AgentUpgradeModule(Needs needs) {
        this.service = new AgentUpgradeService(needs.jdbi(), needs.targets(), needs.calls(), new RegistryAgents(needs.agents()),
                needs.packages(), needs.leases(), needs.clock());
    }

    public AgentUpgradeService service() {
        return service;
    }

    @Override
    public void close() {
        service.close();
    }
}

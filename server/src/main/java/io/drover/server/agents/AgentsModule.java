package io.drover.server.agents;

import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryService;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agents' parts: the registry (who is known, online, in which business) and the enrollment tokens. */
public final class AgentsModule {
    private static final Logger log = LoggerFactory.getLogger(AgentsModule.class);

    /**
     * What the module needs from the rest of the server; {@code agentBiz} is the business of agents that enroll without
     * one, {@code leadsPruning} whether this server also marks lost the agents of servers that stopped.
     */
    public record Needs(Jdbi jdbi, EventStore events, InventoryService inventory, Long agentBiz,
                        BooleanSupplier leadsPruning, Clock clock) {
    }

    private final AgentRegistry registry;
    private final EnrollmentTokenStore enrollment;

    public AgentsModule(Needs needs) {
        this.registry = new AgentRegistry(needs.jdbi(), needs.events(), needs.inventory(), needs.agentBiz(), needs.clock(),
                needs.leadsPruning());
        this.enrollment = new EnrollmentTokenStore(needs.jdbi(), needs.clock());
    }

    /** Marks offline the agents that stopped reporting (run every second). */
    public void checkPresence() {
        try {
            registry.checkPresence();
        } catch (RuntimeException e) {
            log.warn("agent presence check failed", e);
        }
    }

    /** An agent whose host is deleted (through any server) is linked to no host. */
    public void followInventory(EventBus bus) {
        bus.subscribe(e -> e.tag().equals(HOST_DELETED), registry::hostDeleted);
    }

    static final String HOST_DELETED = "drover/inventory/host/deleted";

    /** In a cluster: agents connected to other servers are online here too. */
    public void followPeers(EventBus bus) {
        bus.subscribeToPeers(e -> e.tag().startsWith("drover/agent/"), registry::peerReported);
    }

    public AgentRegistry registry() {
        return registry;
    }

    public EnrollmentTokenStore enrollment() {
        return enrollment;
    }
}

package io.drover.server.agentpackages;

import java.nio.file.Path;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent packages' parts: the service, with what an interrupted upload left removed and the packages of a
 * distribution's directory registered.
 */
public final class AgentPackagesModule {
    private static final Logger log = LoggerFactory.getLogger(AgentPackagesModule.class);

    /**
     * What the module needs: {@code dataDir} holds the packages and the files agents fetch, {@code distributed} (or
     * null) the packages a distribution ships.
     */
    public record Needs(Jdbi jdbi, Path dataDir, Path distributed, long maxUploadBytes, Clock clock) {
    }

    private final AgentPackageService service;

    public AgentPackagesModule(Needs needs) {
        this.service = new AgentPackageService(new AgentPackageStore(needs.jdbi()), needs.dataDir().resolve("agent-packages"),
                needs.dataDir().resolve("files"), needs.maxUploadBytes(), needs.clock());
        service.removeLeftovers();
        if (needs.distributed() != null) {
            int registered = service.registerFrom(needs.distributed());
            if (registered > 0) {
                log.info("registered {} agent package(s) from {}", registered, needs.distributed());
            }
        }
    }

    public AgentPackageService service() {
        return service;
    }
}

package io.drover.server.agentinstall;

import io.drover.core.agents.AllowedTargets;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.inventory.InventoryService;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/** The agent installs' part: the service that installs agents on hosts over SSH. */
public final class AgentInstallModule implements AutoCloseable {

    /**
     * What the module needs: {@code packagesDir} holds the agent packages installed; {@code saltHost} and
     * {@code requestPort} where the agent transport listens; {@code alone} whether this server has no cluster.
     */
    public record Needs(Jdbi jdbi, Path packagesDir, EnrollmentTokenStore enrollment, AgentRegistry agents,
                        InventoryService inventory, String saltHost, int requestPort, String masterFinger,
                        AllowedTargets allowedTargets, boolean alone, Clock clock) {
    }

    private final AgentInstallService service;

    public AgentInstallModule(Needs needs) {
        this.service = new AgentInstallService(needs.jdbi(), new DirectoryPackageFiles(needs.packagesDir()),
                needs.enrollment(), needs.agents(), needs.inventory(), advertisedMasters(needs.saltHost(), needs.requestPort()),
                needs.masterFinger(), needs.allowedTargets(), needs.alone(), needs.clock());
    }

    /**
     * The agent transport address hosts installed over SSH are given when the request names none: salt-host when it is
     * one address others can reach (not every interface, not loopback); else none, and the request must name it.
     */
    static List<String> advertisedMasters(String saltHost, int requestPort) {
        String host = saltHost.strip();
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("localhost")
                || host.startsWith("127.") || host.equals("::1")) {
            return List.of();
        }
        return List.of((host.contains(":") ? "[" + host + "]" : host) + ":" + requestPort);
    }

    public AgentInstallService service() {
        return service;
    }

    @Override
    public void close() {
        service.close();
    }
}

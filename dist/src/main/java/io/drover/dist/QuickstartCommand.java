package io.drover.dist;

import io.drover.model.Json;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.InventoryDocument;
import io.drover.server.DroverServer;
import io.drover.server.auth.AdminTokenFile;
import io.drover.server.auth.Principal;
import io.drover.server.config.ServerConfig;
import io.drover.server.config.Setting;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code drover quickstart}: a server with embedded storage and the demo inventory, ready to explore. */
@Command(name = "quickstart", mixinStandardHelpOptions = true,
        description = "Start a server with embedded storage in ./data/quickstart and the demo inventory; Ctrl-C stops it.")
final class QuickstartCommand implements Callable<Integer> {
    static final String DEMO_INVENTORY = "examples/inventory/demo.yaml";
    static final long DEMO_BUSINESS = 2;
    private static final Principal QUICKSTART = Principal.system("quickstart");

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Where to keep the database and token (default: data/quickstart).")
    Path dataDir = Path.of("data", "quickstart");

    @Option(names = "--port", description = "HTTP port (default: 8080).")
    int port = 8080;

    @Option(names = "--agents", description = "Local agents to start, each with its own root data/quickstart/host-N (default: 3).")
    int agentCount = 3;

    @Override
    public Integer call() throws InterruptedException {
        ServerConfig config = ServerConfig.defaults().with(Map.of(Setting.DATA_DIR, dataDir.toString(),
                Setting.PORT, Integer.toString(port)));
        DroverServer server;
        try {
            server = DroverServer.start(config);
        } catch (RuntimeException e) {
            String reason = StartupFailure.explain(e, dataDir.toString(), port);
            if (reason == null) {
                throw e;
            }
            System.err.println("error: " + reason);
            return 1;
        }
        ImportResult imported;
        String enrollToken;
        try {
            imported = importDemo(server);
            enrollToken = server.enrollment().create(QUICKSTART, new EnrollmentTokenRequest("quickstart agents",
                    DEMO_BUSINESS, 24L)).token();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        LocalAgents agents = new LocalAgents(config.dataDir(), agentCount, "127.0.0.1", server.master().requestPort(),
                server.master().publishPort(), enrollToken, demoAddresses());
        long subscription;
        try {
            System.out.println("drover quickstart: server up at " + server.url() + "; waiting for " + agentCount
                    + " local agents, then deploying the example plugins...");
            subscription = new QuickstartDeployment(server, QUICKSTART, System.out).deploy(exampleRegistry(), agentCount);
        } catch (RuntimeException e) {
            System.err.println("quickstart: the example deployment failed: " + e.getMessage());
            subscription = -1;
        }
        printWelcome(server, imported, subscription);
        return ServerCommand.runUntilStopped(() -> {
            agents.close();
            SimulatedHosts.stopProcessesUnder(config.dataDir());
            server.close();
        });
    }

    static ImportResult importDemo(DroverServer server) {
        InventoryDocument doc;
        try (InputStream in = QuickstartCommand.class.getClassLoader().getResourceAsStream(DEMO_INVENTORY)) {
            if (in == null) {
                throw new IllegalStateException(DEMO_INVENTORY + " is missing from the distribution");
            }
            doc = Json.yaml().readValue(in, InventoryDocument.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DEMO_INVENTORY, e);
        }
        return server.inventoryImport().importDocument(QUICKSTART, doc);
    }

    /** Local agent N stands for demo host N (so its address links it to that host), beyond them for new hosts. */
    private List<String> demoAddresses() {
        List<String> known = List.of("10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4", "10.0.2.1", "10.0.2.2");
        return java.util.stream.IntStream.rangeClosed(1, agentCount)
                .mapToObj(i -> i <= known.size() ? known.get(i - 1) : "10.0.9." + i).toList();
    }

    /** examples/registry of the distribution ({@code drover.home}), else of the working directory. */
    static Path exampleRegistry() {
        String home = System.getProperty("drover.home");
        Path fromHome = home == null ? null : Path.of(home, "examples", "registry");
        return fromHome != null && java.nio.file.Files.isDirectory(fromHome) ? fromHome
                : Path.of("examples", "registry").toAbsolutePath();
    }

    private void printWelcome(DroverServer server, ImportResult imported, long subscription) {
        Path tokenFile = server.config().dataDir().resolve(AdminTokenFile.FILE_NAME);
        String url = server.url();
        String flags = url.equals("http://127.0.0.1:8080") ? "" : " --server " + url;
        String drover = System.getenv().getOrDefault("DROVER_LAUNCHER", "bin/drover");
        System.out.printf("""

                Drover quickstart is running.
                  Console:      %s/ui/   (sign in with the admin token)
                  API:          %s/api/v1   (OpenAPI: %s/api/v1/openapi.json)
                  Admin token:  %s
                  Inventory:    demo business imported (%d created, %d updated, %d unchanged)
                  Agents:       host-1..host-%d (roots and logs in %s/host-N), enrolled into the demo business

                Try, in another terminal from this directory:
                  %s run '*' test.ping%s
                  %s agent list%s
                  %s inventory tree 2%s
                  %s host list --module 20%s
                  %s service list --biz 2%s
                  %s events --tag 'drover/inventory/*'%s
                  %s host move 4 --module 20%s      (and watch the event arrive)
                """, url, url, url, tokenFile, imported.created(), imported.updated(), imported.unchanged(),
                agentCount, server.config().dataDir(), drover, flags, drover, flags, drover, flags, drover, flags, drover, flags, drover, flags, drover, flags);
        if (subscription > 0) {
            Path spec = server.config().dataDir().resolve("quickstart-subscription.yaml");
            System.out.printf("""

                    The example plugins are deployed by subscription %d. Change something and watch it converge:
                      %s sub instances %d%s                   what runs where, with ports
                      %s host plugins 1%s                     what is deployed on demo host 1
                      edit scrape_interval in %s, then
                      %s sub plan %d -f %s%s       (PUSH_CONFIG on every instance)
                      %s sub update %d -f %s --watch%s
                      %s host move 3 --module 22%s            (host 3 leaves the scope: UNINSTALL after 10 s)
                      %s sub disable %d --watch%s / %s sub enable %d --watch%s
                    """, subscription, drover, subscription, flags, drover, flags, spec, drover, subscription, spec, flags,
                    drover, subscription, spec, flags, drover, flags, drover, subscription, flags, drover, subscription, flags);
        }
        System.out.println();
        System.out.println("Press Ctrl-C to stop.");
    }
}

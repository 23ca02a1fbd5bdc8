package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.model.Json;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.packages.AddonRequest;
import io.drover.model.packages.RegistryRequest;
import io.drover.core.testing.AgentPackages;
import io.drover.core.testing.TestCa;
import io.drover.server.auth.Principal;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console in a real browser: Playwright ({@code playwright-core} from the console's own lockfile) drives
 * Debian's Chromium against a real server with three real agents. The browser scripts live in {@code ui/e2e/}; each
 * saves screenshots under {@code dist/target/console-screenshots/} and exits non-zero naming the step that failed.
 * The server serves HTTPS with a certificate of a CA made for the test; Chromium accepts it by the hash of its public
 * key ({@code --ignore-certificate-errors-spki-list}), which trusts that one key and nothing else. Without Chromium or the console's node modules the tests are skipped, except under CI, where they fail.
 */
class ConsoleBrowserTest {
    static final Path UI = Path.of("..", "ui").toAbsolutePath().normalize();
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("DROVER_CHROMIUM", "/usr/bin/chromium"));
    static final Path SHOTS = Path.of("target", "console-screenshots").toAbsolutePath();
    static final Path EXAMPLES = Path.of("..", "examples", "registry").toAbsolutePath().normalize();

    @TempDir
    Path roots;
    @TempDir
    static Path tls;
    static TestCa.Leaf certificate;
    static javax.net.ssl.SSLContext trust;

    @BeforeAll
    static void needsABrowser() {
        boolean ready = Files.isExecutable(CHROMIUM) && Files.isDirectory(UI.resolve("node_modules/playwright-core"));
        if (!ready && System.getenv("CI") != null) {
            throw new AssertionError("the console's browser tests need " + CHROMIUM + " (.ci/run installs Debian's chromium) "
                    + "and ui/node_modules (the server build installs them)");
        }
        Assumptions.assumeTrue(ready, "no Chromium at " + CHROMIUM + " or no ui/node_modules: browser tests skipped");
        TestCa ca = TestCa.create(tls, "console-test-ca");
        certificate = ca.server("drover-console", TestCa.KeyKind.EC_SEC1, true);
        trust = ca.sslContext();
    }

    /** A server on HTTPS with the test CA's certificate. */
    static TestServer httpsServer() {
        TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.TLS_CERT, certificate.cert().toString(),
                Setting.TLS_KEY, certificate.key().toString()), trust);
        assertThat(server.url()).startsWith("https://");
        return server;
    }

    @Test
    void anOperatorWorksThroughTheConsole() throws Exception {
        try (Fleet fleet = new Fleet(httpsServer(), roots)) {
            var server = fleet.server.server();
            Principal admin = Principal.system("test");
            QuickstartCommand.importDemo(server);
            server.registries().add(new RegistryRequest("examples", "local", EXAMPLES.toString(), null, null));
            server.addons().enable(new AddonRequest("examples/bkmonitorbeat", Map.of(), false));
            String enroll = server.enrollment().create(admin, new EnrollmentTokenRequest("console", 2L, 1L)).token();
            // the newest registered agent package is 0.2.0: host-1 and host-2 run an older agent
            server.agentPackages().upload(admin, new ByteArrayInputStream(AgentPackages.of("0.2.0", "x86_64")),
                    "drover-agent-0.2.0-linux-x86_64.tar.gz");
            List<String> addresses = List.of("10.0.1.1", "10.0.1.2", "10.0.1.3");
            List<String> versions = List.of("0.1.0", "0.2.0-SNAPSHOT", "0.2.0");
            for (int i = 0; i < addresses.size(); i++) {
                fleet.agent("host-" + (i + 1), addresses.get(i), enroll, Duration.ofSeconds(30), versions.get(i));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> onlineAgents(fleet.server) == 3);
            String viewer = fleet.server.post("/api/v1/tokens", fleet.server.adminToken(),
                    Map.of("name", "watcher", "role", "viewer")).body().path("token").asText();

            Browser run = browser("e2e/console.e2e.mjs", fleet.server, "operator-day", Map.of("DROVER_VIEWER_TOKEN", viewer,
                    "DROVER_CLOSED_PORT", Integer.toString(closedPort())));
            assertThat(run.exit()).as("the browser script failed:%n%s", run.output()).isZero();
        }
    }

    @Test
    void theHostListShowsItsFirstPageWithinASecondAt100000Hosts() throws Exception {
        try (TestServer server = httpsServer()) {
            var imported = server.postRaw("/api/v1/inventory/import", server.adminToken(), "application/json",
                    Json.json().writeValueAsString(LargeImportTest.fleet(100_000, -1)));
            assertThat(imported.status()).as(imported.text()).isEqualTo(200);

            Browser run = browser("e2e/hosts.e2e.mjs", server, "host-list", Map.of());
            assertThat(run.exit()).as("the browser script failed:%n%s", run.output()).isZero();
            assertThat(run.output()).contains("first page of 100000 hosts");
        }
    }

    /** A loopback port nothing listens on (it was free a moment ago): an SSH connection to it is refused at once. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static long onlineAgents(TestServer server) {
        long online = 0;
        for (var agent : server.get("/api/v1/agents", server.adminToken()).body()) {
            online += agent.path("online").asBoolean() ? 1 : 0;
        }
        return online;
    }

    record Browser(int exit, String output) {
    }

    /** Runs one browser script with node against the server; its output is printed and returned. */
    static Browser browser(String script, TestServer server, String shots, Map<String, String> env)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(SHOTS.resolve(shots));
        Path log = Files.createTempFile("console-browser", ".log");
        ProcessBuilder builder = new ProcessBuilder("node", UI.resolve(script).toString()).directory(UI.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(Map.of("DROVER_URL", server.url(), "DROVER_TOKEN", server.adminToken(),
                "DROVER_SHOTS", dir.toString(), "DROVER_CHROMIUM", CHROMIUM.toString(),
                "DROVER_SPKI", TestCa.spkiSha256(certificate.cert())));
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        System.out.println(output);
        return new Browser(process.isAlive() ? -1 : process.exitValue(), output);
    }
}

package io.drover.dist;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.drover.server.testing.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus Alertmanager (Debian's {@code prometheus-alertmanager}, which {@code .ci/run} installs) on
 * loopback, routing every alert to one webhook with a bearer token. Without it the test is skipped, except under CI,
 * where it fails.
 */
final class Alertmanager implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/prometheus-alertmanager");

    final int port;
    private final Process process;

    private Alertmanager(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    static void require() {
        if (!Files.isExecutable(BINARY) && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but " + BINARY + " is missing: .ci/run installs prometheus-alertmanager");
        }
        assumeTrue(Files.isExecutable(BINARY), BINARY + " is not installed (apt-get install prometheus-alertmanager)");
    }

    /** Started with group_wait and group_interval of 1 s and a repeat interval of {@code repeat}, so repeats come quickly. */
    static Alertmanager start(Path dir, String webhook, String token, String repeat) throws IOException {
        require();
        Files.createDirectories(dir.resolve("data"));
        Path config = dir.resolve("alertmanager.yml");
        Files.writeString(config, """
                route:
                  receiver: drover
                  group_by: [alertname, instance]
                  group_wait: 1s
                  group_interval: 1s
                  repeat_interval: %s
                receivers:
                  - name: drover
                    webhook_configs:
                      - url: %s
                        send_resolved: false
                        http_config:
                          authorization:
                            type: Bearer
                            credentials: %s
                """.formatted(repeat, webhook, token));
        int port = TestServer.freePort();
        Process process = new ProcessBuilder(BINARY.toString(), "--config.file=" + config, "--storage.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--cluster.listen-address=").redirectErrorStream(true)
                .redirectOutput(dir.resolve("alertmanager.log").toFile()).start();
        Alertmanager am = new Alertmanager(port, process);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> am.get("/-/ready").statusCode() == 200);
        return am;
    }

    /** Posts alerts (a JSON list) to Alertmanager's API, as Prometheus does. */
    int post(String alertsJson) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v2/alerts"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(alertsJson)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    HttpResponse<String> get(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}

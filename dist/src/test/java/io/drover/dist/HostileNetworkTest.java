package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.model.Json;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.zmtp.Zmtp;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of the transport hardening issue against a real server process, with a raw TCP client and hand-made
 * frames; after each one, three real agents answer test.ping within 2 s and {@code /readyz} says ready; at the end
 * SIGTERM stops the server within 10 s. A second server on the same ports exits non-zero naming the port.
 */
class HostileNetworkTest {
    @TempDir
    Path dir;
    Process server;
    int httpPort;
    int publishPort;
    int requestPort;
    String token;
    final HttpClient http = HttpClient.newHttpClient();
    final List<DroverAgent> agents = new ArrayList<>();

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    Process serverProcess(Path dataDir, Path log) throws IOException {
        List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m", "-Xss512k",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server", "--port", Integer.toString(httpPort),
                "--data-dir", dataDir.toString(), "--salt-publish-port", Integer.toString(publishPort),
                "--salt-request-port", Integer.toString(requestPort), "--auto-accept", "web-*");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    @BeforeEach
    void start() throws Exception {
        httpPort = freePort();
        publishPort = freePort();
        requestPort = freePort();
        server = serverProcess(dir.resolve("data"), dir.resolve("server.log"));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> readyz().statusCode() == 200);
        token = Files.readString(dir.resolve("data/admin.token")).strip();
        for (int i = 1; i <= 3; i++) {
            MinionConfig config = MinionConfig.of("web-" + i, "127.0.0.1", publishPort, requestPort)
                    .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200));
            agents.add(DroverAgent.start(config, dir.resolve("web-" + i), "test", new Grains.Placement(null, 0), Duration.ofSeconds(30)));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> pingAnswers(5) == 3);
    }

    @AfterEach
    void stop() {
        agents.forEach(DroverAgent::close);
        if (server.isAlive()) {
            server.destroyForcibly();
        }
    }

    HttpResponse<String> readyz() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> call(String method, String path, Object body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(body)));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Runs test.ping on every agent; how many answered within {@code seconds}. */
    int pingAnswers(int seconds) throws Exception {
        HttpResponse<String> started = call("POST", "/api/v1/jobs", Map.of("tgt", "web-*", "fun", "test.ping"));
        assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
        String jid = Json.json().readTree(started.body()).path("jid").asText();
        JsonNode job = Json.json().readTree(call("GET", "/api/v1/jobs/" + jid + "?wait=" + seconds, null).body());
        int answered = 0;
        for (JsonNode r : job.path("returns")) {
            answered += r.path("ret").asBoolean() ? 1 : 0;
        }
        return answered;
    }

    void fleetStillWorks() throws Exception {
        long start = System.nanoTime();
        assertThat(pingAnswers(2)).as("agents answering test.ping").isEqualTo(3);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
        HttpResponse<String> ready = readyz();
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(server.isAlive()).isTrue();
    }

    /** Writes the bytes on a new connection; true once the server has closed it (within 7 s). */
    static boolean closedByServer(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(7000);
            socket.getOutputStream().write(bytes);
            InputStream in = socket.getInputStream();
            try {
                while (in.read(new byte[4096]) >= 0) {
                    // greeting and READY
                }
                return true;
            } catch (java.net.SocketException e) {
                return true;
            } catch (java.net.SocketTimeoutException e) {
                return false;
            }
        }
    }

    @Test
    void everyAttackCostsOnlyItsOwnConnectionAndSigtermStillStopsTheServer() throws Exception {
        // 1. An unauthenticated frame header announcing a huge body, on both ports, before and after READY.
        for (int port : new int[] {publishPort, requestPort}) {
            for (long size : new long[] {1L << 62, 1L << 30, -1L}) {
                assertThat(closedByServer(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.longHeader(0, size)))).isTrue();
                assertThat(closedByServer(port, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("DEALER"),
                        Zmtp.longHeader(0, size)))).isTrue();
            }
        }
        fleetStillWorks();

        // 2. A 10 KB SUBSCRIBE to the publish port.
        byte[] tenKb = new byte[10_000];
        java.util.Arrays.fill(tenKb, (byte) 'x');
        assertThat(closedByServer(publishPort, Zmtp.bytes(ByteBuffer.wrap(Zmtp.greeting()), Zmtp.ready("SUB"),
                Zmtp.subscription(tenKb)))).isTrue();
        fleetStillWorks();

        // 3. Compound targets nested 500 to 20,000 levels: refused with 422 naming the limit.
        for (int depth : new int[] {500, 5_000, 20_000}) {
            HttpResponse<String> r = call("POST", "/api/v1/jobs", Map.of("tgt", "( ".repeat(depth) + "web-1" + " )".repeat(depth),
                    "tgt_type", "compound", "fun", "test.ping"));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("problem+json"));
            assertThat(r.body()).contains("deeper than");
        }
        fleetStillWorks();

        // 4. Fifty jobs at once to the same agents: every one answered by all three.
        List<String> jids = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    HttpResponse<String> r = call("POST", "/api/v1/jobs", Map.of("tgt", "web-*", "fun", "test.ping"));
                    jids.add(Json.json().readTree(r.body()).path("jid").asText());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(jids).hasSize(50);
        for (String jid : jids) {
            JsonNode job = Json.json().readTree(call("GET", "/api/v1/jobs/" + jid + "?wait=20", null).body());
            assertThat(job.path("returns").size()).as("returns of %s", jid).isEqualTo(3);
        }
        fleetStillWorks();

        // 5. A second server on the same transport ports: one line naming the port, exit status not 0.
        int secondHttp = freePort();
        int keep = httpPort;
        httpPort = secondHttp;
        Process second = serverProcess(dir.resolve("data2"), dir.resolve("second.log"));
        httpPort = keep;
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.exitValue()).isNotZero();
        String log = Files.readString(dir.resolve("second.log"));
        assertThat(log).contains("error: port " + publishPort + " is already in use");
        assertThat(log).doesNotContain("\tat ");

        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).containsPattern("drover_salt_bad_frames_total\\{kind=\"oversize\",port=\"request\"} [1-9]");
        assertThat(metrics.body()).containsPattern("drover_salt_transport_restarts_total 0");

        long stopAt = System.nanoTime();
        server.destroy(); // SIGTERM
        assertThat(server.waitFor(10, TimeUnit.SECONDS)).as("stopped within 10 s of SIGTERM").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - stopAt)).isLessThan(Duration.ofSeconds(10));
    }
}

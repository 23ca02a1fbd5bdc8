package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.agent.Grains;
import io.drover.model.Json;
import io.drover.server.testing.TestDatabases;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.MinionConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault test: a real server process on PostgreSQL is killed with SIGKILL while a diagnosis runs its second node on a
 * real agent. The next start resumes the diagnosis at that node, asking for the answer to the job the dead server
 * sent (the agent sends it again, or it was stored) instead of running the node again, and finishes it: every node
 * runs once.
 */
class DiagnosisKillTest {
    @TempDir
    Path dir;
    final HttpClient http = HttpClient.newHttpClient();
    final List<String> database = new ArrayList<>();
    int port;
    int publishPort;
    int requestPort;

    Process start() throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), io.drover.dist.Main.class.getName(), "server", "--port", Integer.toString(port),
                "--data-dir", dir.resolve("data").toString(), "--salt-publish-port", Integer.toString(publishPort),
                "--salt-request-port", Integer.toString(requestPort), "--diagnosis-retry-seconds", "1"));
        command.addAll(database);
        Process server = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile())).start();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/readyz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        return server;
    }

    JsonNode send(String method, String path, Object body) throws Exception {
        String token = Files.readString(dir.resolve("data/admin.token")).strip();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(body)));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isLessThan(300);
        return r.body().isEmpty() ? null : Json.json().readTree(r.body());
    }

    static Map<String, Object> operation(String script) {
        return Map.of("kind", "Operation", "spec", Map.of("processor", Map.of("timeoutSeconds", 60, "scriptRunner", Map.of("script", script))));
    }

    @Test
    void aServerKilledMidDiagnosisResumesItAtTheNodeItWasOn() throws Exception {
        TestDatabases.Target pg = TestDatabases.postgres();
        database.addAll(List.of("--db-url", pg.url(), "--db-user", pg.user(), "--db-password", pg.password()));
        port = TestServer.freePort();
        publishPort = TestServer.freePort();
        requestPort = TestServer.freePort();
        Path marks = dir.resolve("marks.txt");
        Process server = start();
        DroverAgent agent = null;
        try {
            send("POST", "/api/v1/inventory/import", Map.of("businesses", List.of(Map.of("bk_biz_id", 2, "bk_biz_name", "shop")),
                    "hosts", List.of(Map.of("bk_host_id", 1, "bk_biz_id", 2, "bk_host_innerip", "10.9.0.1", "bk_host_name", "web-1"))));
            String enroll = send("POST", "/api/v1/enrollment-tokens", Map.of("name", "e", "bk_biz_id", 2)).path("token").asText();
            agent = DroverAgent.start(MinionConfig.of("web-1", "127.0.0.1", publishPort, requestPort)
                            .withTimeouts(Duration.ofSeconds(3), Duration.ofMillis(300), Duration.ofMillis(200)).withEnrollToken(enroll),
                    dir.resolve("agent"), "test", new Grains.Placement("10.9.0.1", 0), Duration.ofSeconds(2));
            await().atMost(Duration.ofSeconds(30)).until(() -> send("GET", "/api/v1/agents", null).path(0).path("bk_host_id").asLong() == 1);

            send("PUT", "/api/v1/diagnosis/operations/first", operation("echo first >> " + marks));
            send("PUT", "/api/v1/diagnosis/operations/slow", operation("echo slow >> " + marks + "; sleep 4"));
            send("PUT", "/api/v1/diagnosis/operations/last", operation("echo last >> " + marks));
            send("PUT", "/api/v1/diagnosis/operation-sets/three", Map.of("kind", "OperationSet", "spec", Map.of("adjacencyList", List.of(
                    Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "first", "to", List.of(2)),
                    Map.of("id", 2, "operation", "slow", "to", List.of(3)), Map.of("id", 3, "operation", "last")))));
            long id = send("POST", "/api/v1/diagnoses", Map.of("kind", "Diagnosis", "metadata", Map.of("name", "killed"),
                    "spec", Map.of("operationSet", "three", "nodeName", "web-1"))).path("diagnoses").get(0).path("id").asLong();

            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(marks) && Files.readAllLines(marks).contains("slow"));
            server.destroyForcibly().waitFor(); // SIGKILL while node 2 runs
            server = start();

            await().atMost(Duration.ofSeconds(90)).until(() -> send("GET", "/api/v1/diagnoses/" + id, null).path("phase").asText()
                    .matches("Succeeded|Failed"));
            JsonNode d = send("GET", "/api/v1/diagnoses/" + id, null);
            assertThat(d.path("phase").asText()).as(d.toString()).isEqualTo("Succeeded");
            assertThat(d.path("succeeded_path").toString()).isEqualTo("[1,2,3]");
            assertThat(d.path("nodes").size()).isEqualTo(3);
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.readAllLines(marks).size() == 3);
            assertThat(Files.readAllLines(marks)).as("every node once, node 2 across the restart included")
                    .containsExactly("first", "slow", "last");
        } finally {
            if (agent != null) {
                agent.close();
            }
            server.destroyForcibly().waitFor();
            pg.drop().run();
        }
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A diagnosis cancelled mid-operation on a real agent: the operation is a long {@code sleep} script; the cancel kills
 * its process group on the agent, the diagnosis ends Cancelled and the node after it never runs. Over HTTP with
 * scoped tokens: another business's operator neither cancels nor deletes it (404), its own operator cannot delete it
 * while it runs (409), and deletes it once cancelled; the CLI cancels and deletes too.
 */
class DiagnosisCancelTest {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 2, bk_biz_name: shop}, {bk_biz_id: 7, bk_biz_name: other}]
            hosts:
              - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_host_name: my-node}
              - {bk_host_id: 7001, bk_biz_id: 7, bk_host_innerip: 10.9.7.1, bk_host_name: their-node}
            """;

    @TempDir
    Path dir;
    Fleet fleet;
    String admin;
    String marks;
    String marker;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(), dir.resolve("agents"));
        admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        JsonNode enroll = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "e", "bk_biz_id", 2)).body();
        fleet.agent("my-node", "10.9.0.1", enroll.path("token").asText(), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.server.get("/api/v1/agents", admin).body().path(0).path("online").asBoolean()
                && fleet.server.get("/api/v1/agents", admin).body().path(0).path("bk_host_id").asLong() == 1);

        marks = dir.resolve("marks.txt").toString();
        marker = "61.0" + ProcessHandle.current().pid(); // a sleep only this test starts: its processes are found by it
        put("/api/v1/diagnosis/operations/first", operation("echo first >> " + marks));
        // a child in the background, one in the foreground: the whole process group must go
        put("/api/v1/diagnosis/operations/long", operation("sleep " + marker + " & sleep " + marker + "; echo long >> " + marks));
        put("/api/v1/diagnosis/operations/last", operation("echo last >> " + marks));
        put("/api/v1/diagnosis/operation-sets/three", Map.of("kind", "OperationSet", "spec", Map.of("adjacencyList", List.of(
                Map.of("id", 0, "to", List.of(1)), Map.of("id", 1, "operation", "first", "to", List.of(2)),
                Map.of("id", 2, "operation", "long", "to", List.of(3)), Map.of("id", 3, "operation", "last")))));
    }

    @AfterEach
    void stop() {
        if (fleet != null) {
            fleet.close();
        }
    }

    void put(String path, Object body) {
        TestServer.Response r = fleet.server.put(path, admin, body);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    static Map<String, Object> operation(String script) {
        return Map.of("kind", "Operation", "spec", Map.of("processor", Map.of("timeoutSeconds", 120, "scriptRunner", Map.of("script", script))));
    }

    String token(String role, long biz) {
        TestServer.Response r = fleet.server.post("/api/v1/tokens", admin, Map.of("name", role + "-" + biz, "role", role,
                "bk_biz_ids", List.of(biz)));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    List<ProcessHandle> sleeping() {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false)).toList();
    }

    List<String> marked() throws Exception {
        Path file = Path.of(marks);
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    /** Starts the diagnosis and waits until its long operation sleeps on the agent. */
    long startAndWaitForTheLongOperation(String token) {
        TestServer.Response started = fleet.server.post("/api/v1/diagnoses", token, Map.of("kind", "Diagnosis",
                "metadata", Map.of("name", "cancelled"), "spec", Map.of("operationSet", "three", "nodeName", "my-node")));
        assertThat(started.status()).as(started.text()).isEqualTo(201);
        long id = started.body().path("diagnoses").get(0).path("id").asLong();
        await().atMost(Duration.ofSeconds(30)).until(() -> sleeping().size() >= 2);
        return id;
    }

    @Test
    void aDiagnosisCancelledMidOperationHasItsScriptKilledOnTheAgentAndRunsNoLaterNode() throws Exception {
        String shop = token("operator", 2);
        String other = token("operator", 7);
        long id = startAndWaitForTheLongOperation(shop);

        // another business's operator: the diagnosis is not there for it, and nothing changes
        TestServer.Response foreignCancel = fleet.server.post("/api/v1/diagnoses/" + id + "/cancel", other, Map.of());
        assertThat(foreignCancel.status()).as(foreignCancel.text()).isEqualTo(404);
        assertThat(foreignCancel.text()).doesNotContain("my-node", "three");
        assertThat(fleet.server.delete("/api/v1/diagnoses/" + id, other).status()).isEqualTo(404);
        // its own operator may not delete it while it runs
        TestServer.Response running = fleet.server.delete("/api/v1/diagnoses/" + id, shop);
        assertThat(running.status()).isEqualTo(409);
        assertThat(running.contentType()).startsWith("application/problem+json");
        assertThat(running.body().path("detail").asText()).isEqualTo("diagnosis " + id + " has not ended: cancel it first "
                + "(POST /api/v1/diagnoses/" + id + "/cancel, drover diag cancel " + id + "), then delete it");
        assertThat(fleet.server.get("/api/v1/diagnoses/" + id, admin).body().path("phase").asText()).isEqualTo("Running");
        assertThat(sleeping()).hasSizeGreaterThanOrEqualTo(2);

        TestServer.Response cancelled = fleet.server.post("/api/v1/diagnoses/" + id + "/cancel", shop, Map.of());
        assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
        assertThat(cancelled.body().path("phase").asText()).isEqualTo("Cancelled");
        JsonNode conditions = cancelled.body().path("conditions");
        JsonNode last = conditions.get(conditions.size() - 1);
        assertThat(last.path("reason").asText()).isEqualTo("Cancelled");
        assertThat(last.path("message").asText()).matches("cancelled by operator-2 while node 2 ran \\(job \\d+\\); job \\d+ killed on "
                + "agent my-node \\([2-9] process\\(es\\) signalled\\)");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(sleeping()).as("the script's processes are gone from the agent").isEmpty());

        // the killed operation's answer is not recorded, and the node after it never runs
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> fleet.server.get("/api/v1/diagnoses/" + id, admin)
                .body().path("phase").asText().equals("Cancelled"));
        JsonNode d = fleet.server.get("/api/v1/diagnoses/" + id, admin).body();
        assertThat(d.path("nodes").size()).as(d.toString()).isEqualTo(1);
        assertThat(d.path("nodes").get(0).path("operation").asText()).isEqualTo("first");
        assertThat(marked()).containsExactly("first");
        assertThat(fleet.server.get("/api/v1/diagnoses?phase=Cancelled", shop).body().size()).isEqualTo(1);

        assertThat(fleet.server.delete("/api/v1/diagnoses/" + id, other).status()).isEqualTo(404);
        assertThat(fleet.server.delete("/api/v1/diagnoses/" + id, shop).status()).isEqualTo(204);
        assertThat(fleet.server.get("/api/v1/diagnoses/" + id, admin).status()).isEqualTo(404);
    }

    @Test
    void theCliCancelsAndDeletesADiagnosis() throws Exception {
        long id = startAndWaitForTheLongOperation(admin);
        Fleet.Run delete = fleet.drover("diag", "delete", String.valueOf(id));
        assertThat(delete.exit()).isNotZero();
        assertThat(delete.err()).contains("cancel it first");

        Fleet.Run cancel = fleet.drover("diag", "cancel", String.valueOf(id));
        assertThat(cancel.exit()).as(cancel.err()).isZero();
        assertThat(cancel.out()).startsWith("diagnosis " + id + ": Cancelled (cancelled by admin while node 2 ran").contains("killed on agent my-node");
        await().atMost(Duration.ofSeconds(10)).until(() -> sleeping().isEmpty());
        Fleet.Run status = fleet.drover("diag", "status", String.valueOf(id), "--wait");
        assertThat(status.exit()).as("a cancelled diagnosis ends the wait, not as a success").isEqualTo(1);
        assertThat(status.out()).contains("Cancelled on my-node", "Complete/Cancelled");
        assertThat(fleet.drover("diag", "ls", "--phase", "Cancelled").out()).contains("cancelled");

        Fleet.Run deleted = fleet.drover("diag", "delete", String.valueOf(id));
        assertThat(deleted.exit()).as(deleted.err()).isZero();
        assertThat(deleted.out()).isEqualTo("diagnosis " + id + " deleted\n");
        assertThat(fleet.drover("diag", "delete", "../tokens").err()).contains("is not a diagnosis id");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !marked().contains("last"));
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.core.testing.AgentPackages;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fleet upgrades (POST /api/v1/agent-upgrades, drover agent upgrade) against a real server and real in-process agents:
 * two agents in business 2, one in business 7, agent packages 9.9.9 stored for both architectures. The in-process
 * agents do not run from an installed layout, so each refuses {@code agent.upgrade}: its host fails, and the failure
 * ratio stops the rollout before its next batch. The way to a new version is tested in dist's end-to-end tests.
 */
class AgentUpgradeTest {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 2, bk_biz_name: two}, {bk_biz_id: 7, bk_biz_name: seven}]
            sets: [{bk_set_id: 20, bk_biz_id: 2, bk_set_name: s2}, {bk_set_id: 70, bk_biz_id: 7, bk_set_name: s7}]
            modules: [{bk_module_id: 21, bk_set_id: 20, bk_module_name: m2}, {bk_module_id: 71, bk_set_id: 70, bk_module_name: m7}]
            hosts:
              - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_module_ids: [21]}
              - {bk_host_id: 2, bk_biz_id: 2, bk_host_innerip: 10.9.0.2, bk_module_ids: [21]}
              - {bk_host_id: 7001, bk_biz_id: 7, bk_host_innerip: 10.9.7.1, bk_module_ids: [71]}
            """;

    @TempDir
    static Path roots;
    static Fleet fleet;
    static String admin;
    static String operator2;
    static String viewer7;

    @BeforeAll
    static void start() throws Exception {
        fleet = new Fleet(TestServer.start(), roots);
        admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        Map<String, String> agents = Map.of("in-1", "10.9.0.1", "in-2", "10.9.0.2", "out-1", "10.9.7.1");
        for (var agent : agents.entrySet()) {
            long biz = agent.getKey().startsWith("in") ? 2 : 7;
            String enroll = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", agent.getKey(), "bk_biz_id", biz))
                    .body().path("token").asText();
            fleet.agent(agent.getKey(), agent.getValue(), enroll, Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode list = fleet.server.get("/api/v1/agents", admin).body();
            int linked = 0;
            for (JsonNode a : list) {
                linked += a.path("bk_host_id").asLong() > 0 && a.path("online").asBoolean() ? 1 : 0;
            }
            return linked == 3;
        });
        uploadAgentPackages(fleet, roots, "9.9.9");
        operator2 = token("op2", "operator", List.of(2));
        viewer7 = token("view7", "viewer", List.of(7));
    }

    @AfterAll
    static void stop() {
        fleet.close();
    }

    /** Agent packages of {@code version} for both architectures, uploaded with the CLI. */
    static void uploadAgentPackages(Fleet fleet, Path dir, String version) throws Exception {
        for (String arch : List.of("x86_64", "aarch64")) {
            Path file = dir.resolve("drover-agent-" + version + "-linux-" + arch + ".tar.gz");
            Files.write(file, AgentPackages.of(version, arch));
            Fleet.Run upload = fleet.drover("agent-package", "upload", file.toString());
            assertThat(upload.exit()).as(upload.out() + upload.err()).isZero();
        }
    }

    static String token(String name, String role, List<Integer> biz) {
        Response r = fleet.server.post("/api/v1/tokens", admin, Map.of("name", name, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    static Map<String, Object> body(Object... keyValues) {
        Map<String, Object> body = new LinkedHashMap<>(Map.of("tgt", "in-*", "version", "9.9.9", "bk_biz_id", 2));
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                body.remove((String) keyValues[i]);
            } else {
                body.put((String) keyValues[i], keyValues[i + 1]);
            }
        }
        return body;
    }

    /** Answers the problem's text. */
    static String refused(String token, Object body, int status, String says) {
        Response r = fleet.server.post("/api/v1/agent-upgrades", token, body);
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.text()).contains(says);
        return r.text();
    }

    @Test
    void refusesTargetsOutsideTheBusinessUnknownVersionsAndMalformedBodiesWithoutStartingAnything() {
        int before = fleet.server.get("/api/v1/agent-upgrades", admin).body().size();
        // an agent of business 7 in the target: refused for a token of every business too
        refused(admin, body("tgt", "*"), 403, "1 of the 3 agents the target names are not (first: out-1)");
        refused(admin, body("tgt", "out-1", "tgt_type", "list"), 403, "business 2");
        // a token of business 2 sees no agent of another business through a target: as if there were none
        assertThat(refused(operator2, body("tgt", "out-*"), 422, "matches no accepted minion")).doesNotContain("out-1");
        refused(operator2, body("tgt", "out-1", "tgt_type", "list", "bk_biz_id", 7), 403, "may not touch business 7");
        refused(operator2, body("tgt", "out-1", "tgt_type", "list"), 422, "matches no accepted minion");
        assertThat(refused(operator2, body("tgt", "G@cpuarch:* and out-*", "tgt_type", "compound", "bk_biz_id", null), 422,
                "matches no accepted minion")).doesNotContain("out-1");
        refused(token("view2", "viewer", List.of(2)), body(), 403, "");
        // without bk_biz_id the agents must all be in one business
        refused(admin, body("tgt", "*", "bk_biz_id", null), 422, "bk_biz_id");
        // no package of that version
        refused(admin, body("version", "9.9.8"), 422, "no agent package 9.9.8 is stored");
        refused(admin, body("version", "../../etc/passwd"), 422, "version");
        refused(admin, body("version", "9.9.9\u0000"), 422, "version");
        refused(admin, body("version", null), 422, "version");
        refused(admin, body("batch_size", 0), 422, "batch_size");
        refused(admin, body("batch_size", 1001), 422, "batch_size");
        refused(admin, body("max_failure_ratio", 1.5), 422, "max_failure_ratio");
        refused(admin, body("max_failure_ratio", -0.1), 422, "max_failure_ratio");
        refused(admin, body("wait_seconds", 5), 422, "wait_seconds");
        refused(admin, body("tgt_type", "nope"), 422, "tgt_type");
        refused(admin, body("tgt", null), 422, "tgt");
        refused(admin, body("tgt", "in-\u0000*"), 422, "tgt");
        // what drover agent upgrades prints may not steer a terminal: bidi marks, escapes
        refused(admin, body("tgt", "in-\u202e*"), 422, "control or format characters");
        refused(admin, body("tgt", "in-*\u001b[2J"), 422, "control character U+001B");
        refused(admin, body("tgt", "x".repeat(5000)), 422, "tgt");
        refused(admin, body("tgt", "nobody-*"), 422, "matches no accepted minion");
        refused(admin, body("surprise", 1), 422, "surprise");
        refused(admin, body("batch_size", "many"), 422, "batch_size");
        Response notJson = fleet.server.postRaw("/api/v1/agent-upgrades", admin, "application/json", "{\"tgt\": ");
        assertThat(notJson.status()).as(notJson.text()).isEqualTo(400);
        assertThat(notJson.contentType()).startsWith("application/problem+json");
        assertThat(fleet.server.get("/api/v1/agent-upgrades", admin).body().size()).isEqualTo(before);
    }

    @Test
    void anAgentThatRefusesFailsItsHostAndTheFailureRatioStopsTheRolloutBeforeTheNextBatch() {
        Response started = fleet.server.post("/api/v1/agent-upgrades", operator2, body("batch_size", 1, "max_failure_ratio", 0.4,
                "bk_biz_id", null));
        assertThat(started.status()).as(started.text()).isEqualTo(202);
        JsonNode task = started.body();
        assertThat(task.path("bk_biz_id").asLong()).isEqualTo(2);
        assertThat(task.path("status").asText()).isEqualTo("running");
        assertThat(task.path("hosts")).hasSize(2);
        String id = task.path("id").asText();
        JsonNode done = awaitEnd(id, admin);
        assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("stopped");
        Map<String, JsonNode> hosts = hosts(done);
        JsonNode first = hosts.get("in-1");
        assertThat(first.path("batch").asInt()).isEqualTo(1);
        assertThat(first.path("status").asText()).isEqualTo("failed");
        assertThat(first.path("error").asText()).startsWith("refused the upgrade");
        assertThat(first.path("from_version").asText()).isEqualTo("test");
        assertThat(first.path("arch").asText()).isIn("x86_64", "aarch64");
        assertThat(hosts.get("in-2").path("batch").asInt()).isEqualTo(2);
        assertThat(hosts.get("in-2").path("status").asText()).isEqualTo("not_started");
        assertThat(hosts.get("in-2").path("started_at").isTextual()).isFalse();
        assertThat(done.path("failed").asInt()).isEqualTo(1);
        assertThat(done.path("not_started").asInt()).isEqualTo(1);
        // the package the agent was sent is under the file root, with the sha256 stored
        Path placed = fleet.server.dataDir().resolve("files/agent-packages/drover-agent-9.9.9-linux-"
                + first.path("arch").asText() + ".tar.gz");
        assertThat(placed).isRegularFile();
        // another business's token sees none of it
        assertThat(fleet.server.get("/api/v1/agent-upgrades/" + id, viewer7).status()).isEqualTo(404);
        assertThat(fleet.server.get("/api/v1/agent-upgrades", viewer7).body().toString()).doesNotContain("in-");
        assertThat(fleet.server.get("/api/v1/agent-upgrades", operator2).body().toString()).contains("\"id\":" + id);
        // a cancel: an operator of the task's business, of a running task
        assertThat(fleet.server.post("/api/v1/agent-upgrades/" + id + "/cancel", viewer7, Map.of()).status()).isEqualTo(403);
        assertThat(fleet.server.post("/api/v1/agent-upgrades/" + id + "/cancel", token("op7", "operator", List.of(7)), Map.of())
                .status()).isEqualTo(404);
        Response over = fleet.server.post("/api/v1/agent-upgrades/" + id + "/cancel", operator2, Map.of());
        assertThat(over.status()).as(over.text()).isEqualTo(409);
        assertThat(over.text()).contains("is stopped: there is nothing to cancel");
        Fleet.Run cli = fleet.drover("agent", "upgrade-cancel", id);
        assertThat(cli.exit()).as(cli.out() + cli.err()).isNotZero();
        assertThat(cli.err()).contains("nothing to cancel");
    }

    @Test
    void theCliFollowsEachHostAndExitsNonZeroWhenAHostFailed() {
        Fleet.Run run = fleet.drover("agent", "upgrade", "--target", "in-1,in-2", "-L", "--version", "9.9.9", "--batch-size", "2",
                "--max-failure-ratio", "1", "--wait");
        assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(1);
        assertThat(run.out()).contains("agent upgrade ").contains("started: 2 agent(s) of business 2 to 9.9.9 in 1 batch(es)")
                .containsPattern("batch 1  in-1  failed  test  refused the upgrade")
                .containsPattern("batch 1  in-2  failed  test  refused the upgrade")
                .containsPattern("agent upgrade \\d+ failed: 0 succeeded, 0 skipped, 2 failed, 0 not started");
        Fleet.Run list = fleet.drover("agent", "upgrades");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("9.9.9").contains("failed");
        Fleet.Run agents = fleet.drover("agent", "list");
        assertThat(agents.exit()).isZero();
        assertThat(agents.out()).contains("VERSION").contains("test");
    }

    static JsonNode awaitEnd(String id, String token) {
        JsonNode[] task = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            task[0] = fleet.server.get("/api/v1/agent-upgrades/" + id, token).body();
            return !task[0].path("status").asText().equals("running");
        });
        return task[0];
    }

    static Map<String, JsonNode> hosts(JsonNode task) {
        Map<String, JsonNode> out = new HashMap<>();
        task.path("hosts").forEach(h -> out.put(h.path("agent_id").asText(), h));
        return out;
    }
}

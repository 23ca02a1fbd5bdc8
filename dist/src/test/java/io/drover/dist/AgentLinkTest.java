package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.events.Event;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent is linked only to a host of the business its admission gave it. Business 7 has a host without agent
 * (10.9.7.1); business 8 has a host with its agent (10.9.8.1). Agents enrolled with business 8's token claim
 * ({@code --ip}) those addresses: they stay unlinked with a recorded, listed conflict, until an admin links them.
 */
class AgentLinkTest {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 7, bk_biz_name: seven}, {bk_biz_id: 8, bk_biz_name: eight}]
            sets: [{bk_set_id: 70, bk_biz_id: 7, bk_set_name: s7}, {bk_set_id: 80, bk_biz_id: 8, bk_set_name: s8}]
            modules: [{bk_module_id: 71, bk_set_id: 70, bk_module_name: m7}, {bk_module_id: 81, bk_set_id: 80, bk_module_name: m8}]
            hosts:
              - {bk_host_id: 7001, bk_biz_id: 7, bk_host_innerip: 10.9.7.1, bk_host_name: seven-db, bk_module_ids: [71]}
              - {bk_host_id: 8001, bk_biz_id: 8, bk_host_innerip: 10.9.8.1, bk_host_name: eight-web, bk_module_ids: [81]}
            """;

    @TempDir
    Path roots;
    Fleet fleet;
    String admin;
    String enroll8;
    final List<Event> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(), roots);
        admin = fleet.server.adminToken();
        fleet.server.server().bus().subscribe(event -> true, events::add);
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        enroll8 = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "eight", "bk_biz_id", 8)).body()
                .path("token").asText();
        fleet.agent("eight-web", "10.9.8.1", enroll8, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> hostOf("eight-web") == 8001);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    JsonNode agent(String id) {
        Response r = fleet.server.get("/api/v1/agents/" + id, admin);
        return r.status() == 200 ? r.body() : null;
    }

    long hostOf(String id) {
        JsonNode a = agent(id);
        return a == null ? 0 : a.path("bk_host_id").asLong();
    }

    List<Event> tagged(String tag) {
        return events.stream().filter(e -> e.tag().equals(tag)).toList();
    }

    String token(String role, List<Integer> biz) {
        Response r = fleet.server.post("/api/v1/tokens", admin, Map.of("name", role + biz, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    /** Waits until the agent has been heard from three more times, so that a repeated event would have come. */
    void threeMoreHeartbeats(String id) {
        OffsetDateTime before = OffsetDateTime.parse(agent(id).path("last_seen").asText());
        await().atMost(Duration.ofSeconds(20)).until(() -> OffsetDateTime.parse(agent(id).path("last_seen").asText())
                .isAfter(before.plusSeconds(3)));
    }

    @Test
    void anAgentOfBusiness8ClaimingTheAddressOfABusiness7HostIsNotLinkedAndTheConflictIsShown() {
        fleet.agent("intruder", "10.9.7.1", enroll8, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(20)).until(() -> !tagged("drover/agent/intruder/link-conflict").isEmpty()
                || !tagged("drover/agent/intruder/linked").isEmpty());
        assertThat(tagged("drover/agent/intruder/linked")).as("linked to business 7's host").isEmpty();
        threeMoreHeartbeats("intruder");

        JsonNode row = agent("intruder");
        assertThat(row.path("bk_host_id").isMissingNode()).as("not linked: %s", row).isTrue();
        assertThat(row.path("link_conflict").path("reason").asText()).isEqualTo("other_business");
        assertThat(row.path("link_conflict").path("claimed_ip").asText()).isEqualTo("10.9.7.1");
        assertThat(row.path("link_conflict").path("bk_host_id").asLong()).as("an admin sees the host").isEqualTo(7001);
        assertThat(fleet.server.server().agents().agentOfHost(7001)).as("business 7's host has no agent").isNull();
        assertThat(tagged("drover/agent/intruder/linked")).isEmpty();

        // Once per conflict, not on every heartbeat; it names the agent's business and nothing of business 7.
        Event conflict = tagged("drover/agent/intruder/link-conflict").stream().reduce((a, b) -> {
            throw new AssertionError("more than one link-conflict event: " + events);
        }).orElseThrow();
        assertThat(conflict.data()).containsEntry("reason", "other_business").containsEntry("claimed_ip", "10.9.7.1");
        assertThat(((Number) conflict.data().get("bk_biz_id")).longValue()).isEqualTo(8);
        assertThat(conflict.data().toString()).doesNotContain("7001").doesNotContain("seven");

        Fleet.Run list = fleet.drover("agent", "list");
        assertThat(list.out()).containsPattern("intruder\\s+.*other_business");
        Fleet.Run json = fleet.drover("agent", "list", "-o", "json");
        assertThat(json.out()).contains("\"reason\" : \"other_business\"");

        // Business 8's viewer sees its agent and why it is unlinked, but not which host of business 7 holds the address.
        Response scoped = fleet.server.get("/api/v1/agents", token("viewer", List.of(8)));
        assertThat(scoped.status()).isEqualTo(200);
        assertThat(scoped.text()).contains("\"intruder\"").contains("other_business").doesNotContain("7001").doesNotContain("\"bk_biz_id\":7");
    }

    @Test
    void anAgentClaimingTheAddressOfAHostThatHasAnAgentIsNotLinked() {
        fleet.agent("twin", "10.9.8.1", enroll8, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(20)).until(() -> !tagged("drover/agent/twin/link-conflict").isEmpty());
        threeMoreHeartbeats("twin");
        assertThat(tagged("drover/agent/twin/link-conflict")).hasSize(1);
        Event conflict = tagged("drover/agent/twin/link-conflict").getFirst();
        assertThat(conflict.data()).containsEntry("reason", "host_has_agent");
        assertThat(((Number) conflict.data().get("conflict_host_id")).longValue()).as("a host of its own business").isEqualTo(8001);
        assertThat(agent("twin").path("bk_host_id").isMissingNode()).isTrue();
        assertThat(agent("twin").path("link_conflict").path("reason").asText()).isEqualTo("host_has_agent");
        assertThat(fleet.server.server().agents().agentOfHost(8001)).isEqualTo("eight-web");
    }

    @Test
    void anAdminLinksAConflictedAgentAuditedAndOthersAreRefused() {
        fleet.agent("intruder", "10.9.7.1", enroll8, Duration.ofSeconds(1));
        fleet.agent("twin", "10.9.8.1", enroll8, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(20)).until(() -> !tagged("drover/agent/intruder/link-conflict").isEmpty()
                && !tagged("drover/agent/twin/link-conflict").isEmpty());

        // Only an admin: an operator of every business and business 8's scoped tokens get 403, and nothing changes.
        for (String token : List.of(token("operator", List.of()), token("operator", List.of(8)), token("viewer", List.of(8)))) {
            Response refused = fleet.server.post("/api/v1/agents/intruder/link", token, Map.of("bk_host_id", 7001, "move_business", true));
            assertThat(refused.status()).as(refused.text()).isEqualTo(403);
            assertThat(refused.contentType()).startsWith("application/problem+json");
        }
        assertThat(hostOf("intruder")).isZero();

        // Another business's host: only when the admin says the agent moves there.
        Fleet.Run notMoved = fleet.drover("agent", "link", "intruder", "7001");
        assertThat(notMoved.exit()).isEqualTo(1);
        assertThat(notMoved.err()).contains("business 7").contains("--move-business");
        Fleet.Run moved = fleet.drover("agent", "link", "intruder", "7001", "--move-business");
        assertThat(moved.exit()).as(moved.err()).isZero();
        assertThat(hostOf("intruder")).isEqualTo(7001);
        assertThat(agent("intruder").path("bk_biz_id").asLong()).isEqualTo(7);
        assertThat(agent("intruder").path("link_conflict").isMissingNode()).isTrue();
        assertThat(tagged("drover/agent/intruder/linked").getFirst().data()).containsEntry("by", "admin");

        // A host with another agent: 409 unless forced; forcing unlinks the other agent, which then shows the conflict.
        Response taken = fleet.server.post("/api/v1/agents/twin/link", admin, Map.of("bk_host_id", 8001));
        assertThat(taken.status()).as(taken.text()).isEqualTo(409);
        assertThat(taken.body().path("code").asText()).isEqualTo("host_has_agent");
        assertThat(hostOf("eight-web")).isEqualTo(8001);
        Response forced = fleet.server.post("/api/v1/agents/twin/link", admin, Map.of("bk_host_id", 8001, "force", true));
        assertThat(forced.status()).as(forced.text()).isEqualTo(200);
        assertThat(forced.body().path("bk_host_id").asLong()).isEqualTo(8001);
        assertThat(hostOf("eight-web")).isZero();
        assertThat(tagged("drover/agent/eight-web/unlinked")).singleElement()
                .satisfies(e -> assertThat(e.data().toString()).contains("twin"));

        Fleet.Run audit = fleet.drover("audit");
        assertThat(audit.out()).contains("/api/v1/agents/intruder/link").contains("/api/v1/agents/twin/link");
    }

    @Test
    void badLinkRequestsGetClearProblems() {
        String path = "/api/v1/agents/eight-web/link";
        Map<Object, String> expected = new java.util.LinkedHashMap<>();
        expected.put(Map.of(), "bk_host_id");
        expected.put(Map.of("bk_host_id", -3), "bk_host_id");
        expected.put(Map.of("bk_host_id", 0), "bk_host_id");
        expected.put(Map.of("bk_host_id", 424242), "host 424242 does not exist");
        expected.put(Map.of("bk_host_id", 8001, "force", "yes please"), "force");
        for (Map.Entry<Object, String> bad : expected.entrySet()) {
            Response r = fleet.server.post(path, admin, bad.getKey());
            assertThat(r.status()).as("%s: %s", bad.getKey(), r.text()).isEqualTo(422);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.text()).contains(bad.getValue());
        }
        Response missing = fleet.server.postRaw(path, admin, "application/json", "");
        assertThat(missing.status()).isEqualTo(400);
        for (String id : List.of("nobody", "a%00b")) {
            Response r = fleet.server.post("/api/v1/agents/" + id + "/link", admin, Map.of("bk_host_id", 8001));
            assertThat(r.status()).as(id + ": " + r.text()).isBetween(400, 404);
            assertThat(r.contentType()).startsWith("application/problem+json");
        }
        assertThat(hostOf("eight-web")).isEqualTo(8001);
    }

    @Test
    void aLinkedAgentWhoseAddressChangesKeepsItsHostAndTheChangeIsRecorded() {
        var first = fleet.agent("mover", "10.9.8.5", enroll8, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(20)).until(() -> hostOf("mover") > 0);
        long host = hostOf("mover");
        first.close();
        fleet.agent("mover", "10.9.7.1", null, Duration.ofSeconds(1)); // same key, now claiming business 7's address
        await().atMost(Duration.ofSeconds(20)).until(() -> !tagged("drover/agent/mover/address-changed").isEmpty());
        threeMoreHeartbeats("mover");
        assertThat(hostOf("mover")).isEqualTo(host);
        assertThat(fleet.server.server().agents().agentOfHost(7001)).isNull();
        assertThat(tagged("drover/agent/mover/address-changed")).singleElement()
                .satisfies(e -> assertThat(e.data()).containsEntry("claimed_ip", "10.9.7.1").containsEntry("previous_ip", "10.9.8.5"));
    }
}

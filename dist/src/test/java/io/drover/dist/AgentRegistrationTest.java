package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.model.Json;
import io.drover.server.testing.TestServer;
import io.drover.transport.minion.SaltMinion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Enrollment tokens, an accepted agent becoming an inventory host, and presence by heartbeat, through the CLI
 * against a real server with the demo inventory.
 */
class AgentRegistrationTest {
    Fleet fleet;
    @TempDir
    Path roots;
    final List<String> tags = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(), roots);
        QuickstartCommand.importDemo(fleet.server.server());
        fleet.server.server().bus().subscribe(event -> true, event -> tags.add(event.tag()));
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    String enrollToken(String... extra) {
        List<String> args = new ArrayList<>(List.of("enroll", "create", "test agents", "--biz", "2", "-o", "json"));
        args.addAll(List.of(extra));
        Fleet.Run created = fleet.drover(args.toArray(String[]::new));
        assertThat(created.exit()).as(created.err()).isZero();
        return json(created.out()).path("token").asText();
    }

    static JsonNode json(String text) {
        try {
            return Json.json().readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError(text, e);
        }
    }

    JsonNode agentRow(String id) {
        for (JsonNode row : json(fleet.drover("agent", "list", "-o", "json").out())) {
            if (row.path("id").asText().equals(id)) {
                return row;
            }
        }
        return null;
    }

    @Test
    void anEnrolledAgentIsAcceptedAndLinkedToTheHostWithItsAddress() {
        String token = enrollToken();
        DroverAgent web1 = fleet.agent("agent-web-1", "10.0.1.1", token, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(15)).until(() -> web1.state() == SaltMinion.State.CONNECTED);
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            JsonNode row = agentRow("agent-web-1");
            return row != null && row.path("bk_host_id").asLong() == 1;
        });
        JsonNode row = agentRow("agent-web-1");
        assertThat(row.path("key_state").asText()).isEqualTo("accepted");
        assertThat(row.path("online").asBoolean()).isTrue();
        assertThat(row.path("version").asText()).isEqualTo("test");
        assertThat(row.path("bk_biz_id").asLong()).isEqualTo(2);
        assertThat(row.path("mode").asText()).isEqualTo("drover");
        assertThat(fleet.drover("agent", "list").out()).containsPattern("agent-web-1\\s+1\\s+2\\s+10\\.0\\.1\\.1\\s+accepted\\s+yes\\s+drover\\s+test");
        assertThat(fleet.drover("agent", "grains", "agent-web-1", "-o", "json").out()).contains("\"drover_innerip\" : \"10.0.1.1\"");
        assertThat(tags).contains("drover/agent/agent-web-1/linked", "salt/minion/agent-web-1/start");
        JsonNode listed = json(fleet.drover("enroll", "list", "-o", "json").out());
        assertThat(listed.get(0).path("uses").asLong()).isEqualTo(1);
        assertThat(fleet.drover("enroll", "list").out()).doesNotContain(token);
    }

    @Test
    void anEnrolledAgentAtANewAddressGetsANewHostInTheIdleModule() {
        DroverAgent fresh = fleet.agent("new-box", "10.9.9.9", enrollToken("--ttl-hours", "1"), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            JsonNode row = agentRow("new-box");
            return row != null && row.path("bk_host_id").isNumber();
        });
        long hostId = agentRow("new-box").path("bk_host_id").asLong();
        JsonNode host = json(fleet.drover("host", "show", Long.toString(hostId), "-o", "json").out());
        assertThat(host.path("bk_host_innerip").asText()).isEqualTo("10.9.9.9");
        assertThat(host.path("bk_biz_id").asLong()).isEqualTo(2);
        assertThat(host.path("bk_module_ids").get(0).asLong()).as("the demo business's idle module")
                .isEqualTo(fleet.server.server().inventory().modules(
                        new io.drover.server.auth.Principal(0, "t", io.drover.model.auth.Role.ADMIN, java.util.Set.of()), 2L, null)
                        .stream().filter(io.drover.model.inventory.TopoModule::idle).findFirst().orElseThrow().bkModuleId());
        assertThat(fresh.state()).isEqualTo(SaltMinion.State.CONNECTED);
    }

    @Test
    void withoutAValidTokenTheKeyStaysPendingAndTheAgentIsNotLinked() {
        String revoked = enrollToken();
        long revokedId = json(fleet.drover("enroll", "list", "-o", "json").out()).get(0).path("id").asLong();
        assertThat(fleet.drover("enroll", "revoke", Long.toString(revokedId)).exit()).isZero();
        fleet.agent("with-revoked", "10.0.1.2", revoked, Duration.ofSeconds(30));
        fleet.agent("with-garbage", "10.0.1.3", "drv_enroll_not-a-real-token", Duration.ofSeconds(30));
        fleet.agent("without", "10.0.1.4", null, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            String keys = fleet.drover("key", "list", "--state", "pending").out();
            return keys.contains("with-revoked") && keys.contains("with-garbage") && keys.contains("without");
        });
        // Accepted by an operator, with no business for token-less agents: online, but no host.
        assertThat(fleet.drover("key", "accept", "without").exit()).isZero();
        await().atMost(Duration.ofSeconds(15)).until(() -> agentRow("without") != null && agentRow("without").path("online").asBoolean());
        assertThat(agentRow("without").path("bk_host_id").isNumber()).isFalse();
        assertThat(agentRow("with-revoked").path("key_state").asText()).isEqualTo("pending");

        Fleet.Run bad = fleet.drover("enroll", "create", "x", "--biz", "999");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("business 999 does not exist");
    }

    @Test
    void anAgentThatStopsHeartbeatingIsLostAndComesBackOnline() {
        DroverAgent agent = fleet.agent("flaky", "10.0.2.1", enrollToken(), Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(15)).until(() -> agentRow("flaky") != null && agentRow("flaky").path("online").asBoolean());
        agent.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> tags.contains("drover/agent/flaky/lost"));
        assertThat(agentRow("flaky").path("online").asBoolean()).isFalse();

        DroverAgent again = fleet.agent("flaky", "10.0.2.1", null, Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(15)).until(() -> agentRow("flaky").path("online").asBoolean());
        await().atMost(Duration.ofSeconds(5)).until(() -> tags.stream().filter(t -> t.equals("drover/agent/flaky/online")).count() == 2);
        assertThat(again.state()).isEqualTo(SaltMinion.State.CONNECTED);
        assertThat(agentRow("flaky").path("bk_host_id").asLong()).isEqualTo(5);
    }
}

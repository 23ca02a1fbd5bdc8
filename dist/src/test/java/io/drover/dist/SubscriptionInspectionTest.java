package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.drover.model.Json;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The periodic inspection: with the inventory trigger out of the way (an hour's debounce), rounds with nothing to do
 * leave no task, and a CMDB edit that no other trigger picks up is converged by the next round.
 */
class SubscriptionInspectionTest {
    @TempDir
    Path roots;

    @Test
    void inspectionLeavesNoTaskWhenConvergedAndRePushesWhatChanged() throws Exception {
        Map<Setting, String> settings = Map.of(Setting.INSPECTION_INTERVAL_SECONDS, "2", Setting.INVENTORY_DEBOUNCE_SECONDS,
                "3600", Setting.SALT_PUBLISH_PORT, Integer.toString(TestServer.freePort()), Setting.SALT_REQUEST_PORT,
                Integer.toString(TestServer.freePort()));
        try (Fleet fleet = new Fleet(TestServer.start(TestServer.newDataDir(), settings), roots)) {
            assertThat(fleet.drover("inventory", "import", "../examples/inventory/demo.yaml").exit()).isZero();
            String token = Json.json().readTree(fleet.drover("enroll", "create", "t", "--biz", "2", "-o", "json").out())
                    .path("token").asText();
            fleet.agent("web-1", "10.0.1.3", token, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> Json.json().readTree(fleet.drover("agent", "list", "-o", "json")
                    .out()).get(0).path("bk_host_id").asLong() == 3);
            assertThat(fleet.drover("plugin", "upload", "../examples/registry/bkmonitorbeat").exit()).isZero();
            Path spec = roots.resolve("spec.yaml");
            Files.writeString(spec, """
                    name: beat
                    scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 3}]}
                    steps: [{id: beat, type: PLUGIN, config: {plugin_name: bkmonitorbeat, config_templates: [{name: bkmonitorbeat_script.conf}]}}]
                    """);
            assertThat(fleet.drover("sub", "create", "-f", spec.toString()).exit()).isZero();
            await().atMost(Duration.ofSeconds(60)).until(() -> status(fleet, 1).equals("SUCCESS"));
            Path config = roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_1_host_3.conf");
            assertThat(Files.readString(config)).contains("name: api-1-disk").doesNotContain("renamed");

            // two inspection rounds with nothing to do leave no task
            await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7)).until(() -> tasks(fleet).size() == 1);

            JsonNode host = fleet.server.get("/api/v1/hosts/3", fleet.server.adminToken()).body().deepCopy();
            ((ObjectNode) host).put("bk_host_name", "renamed");
            assertThat(fleet.server.put("/api/v1/hosts/3", fleet.server.adminToken(), host).status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> tasks(fleet).size() == 2 && status(fleet, 2).equals("SUCCESS"));
            JsonNode second = fleet.server.get("/api/v1/tasks/2", fleet.server.adminToken()).body();
            assertThat(second.path("trigger").asText()).isEqualTo("inspection");
            assertThat(second.toString()).contains("PUSH_CONFIG");
            assertThat(Files.readString(config)).contains("name: renamed-disk");
        }
    }

    private static String status(Fleet fleet, int task) {
        return fleet.server.get("/api/v1/tasks/" + task, fleet.server.adminToken()).body().path("status").asText();
    }

    private static java.util.List<JsonNode> tasks(Fleet fleet) {
        java.util.List<JsonNode> list = new java.util.ArrayList<>();
        fleet.server.get("/api/v1/subscriptions/1/tasks", fleet.server.adminToken()).body().forEach(list::add);
        return list;
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
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
 * A server stopped while a task runs: the next start takes the task over and finishes it once the agent is back, each
 * sub-step under the job id it was first sent as (the agent runs a job id once), and nothing stays RUNNING.
 */
class SubscriptionRestartTest {
    @TempDir
    Path roots;

    @Test
    void anInterruptedTaskIsContinuedByTheNextStartWithoutSendingAStepTwice() throws Exception {
        Path data = TestServer.newDataDir();
        Map<Setting, String> settings = Map.of(Setting.JOB_TIMEOUT_SECONDS, "60", Setting.SALT_PUBLISH_PORT,
                Integer.toString(TestServer.freePort()), Setting.SALT_REQUEST_PORT, Integer.toString(TestServer.freePort()));
        Fleet fleet = new Fleet(TestServer.start(data, settings), roots);
        assertThat(fleet.drover("inventory", "import", "../examples/inventory/demo.yaml").exit()).isZero();
        String token = Json.json().readTree(fleet.drover("enroll", "create", "t", "--biz", "2", "-o", "json").out())
                .path("token").asText();
        fleet.agent("web-1", "10.0.1.3", token, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "-L", "web-1", "test.ping", "--timeout", "3").exit() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> Json.json().readTree(fleet.drover("agent", "list", "-o", "json").out())
                .get(0).path("bk_host_id").asLong() == 3);
        assertThat(fleet.drover("plugin", "upload", "../examples/registry/bkmonitorbeat").exit()).isZero();
        fleet.agents().getFirst().close(); // the job below now waits for an agent that does not answer
        Path spec = roots.resolve("spec.yaml");
        Files.writeString(spec, """
                name: beat
                scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 3}]}
                steps: [{id: beat, type: PLUGIN, config: {plugin_name: bkmonitorbeat}}]
                """);
        assertThat(fleet.drover("sub", "create", "-f", spec.toString()).exit()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> fleet.drover("task", "show", "1", "-o", "json").out()
                .contains("\"jid\""));
        JsonNode before = Json.json().readTree(fleet.drover("task", "show", "1", "-o", "json").out());
        JsonNode waiting = before.path("instances").get(0).path("steps").get(0).path("sub_steps").get(0);
        assertThat(waiting.path("status").asText()).isEqualTo("RUNNING");
        fleet.server.close();

        Fleet again = new Fleet(TestServer.start(data, settings), roots);
        try {
            again.agent("web-1", "10.0.1.3", token, Duration.ofSeconds(30)); // the same agent, back
            await().atMost(Duration.ofSeconds(60)).until(() -> again.server.get("/api/v1/tasks/1", again.server.adminToken())
                    .body().path("status").asText().equals("SUCCESS"));
            JsonNode task = again.server.get("/api/v1/tasks/1", again.server.adminToken()).body();
            assertThat(task.toString()).as("no step or sub-step left running").doesNotContain("\"RUNNING\"", "\"PENDING\"");
            JsonNode subSteps = task.path("instances").get(0).path("steps").get(0).path("sub_steps");
            assertThat(subSteps.get(0).path("name").asText()).isEqualTo(waiting.path("name").asText());
            assertThat(subSteps.get(0).path("jid").asText()).as("the call waiting at the stop keeps its job")
                    .isEqualTo(waiting.path("jid").asText());
            java.util.List<String> jids = subSteps.findValuesAsText("jid");
            assertThat(jids).hasSize(subSteps.size()).doesNotHaveDuplicates();
            assertThat(subSteps.findValuesAsText("name")).doesNotHaveDuplicates();
            assertThat(subSteps.findValuesAsText("status")).containsOnly("SUCCESS");
        } finally {
            again.close();
        }
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.agent.DroverAgent;
import io.drover.model.Json;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * Subscriptions end to end: a real server, real agents on loopback with their own roots, the example plugins, and
 * the CLI. The third-party demo-exporter really runs, listens on its allocated port and serves its rendered config.
 */
class SubscriptionEndToEndTest {
    static final Path REGISTRY = Path.of("..", "examples", "registry");
    static final Path DEMO = Path.of("..", "examples", "inventory", "demo.yaml");

    Fleet fleet;
    @TempDir
    Path roots;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.INVENTORY_DEBOUNCE_SECONDS, "1",
                Setting.JOB_TIMEOUT_SECONDS, "6")), roots);
    }

    @AfterEach
    void stop() {
        fleet.drover("sub", "delete", "1");
        fleet.close();
    }

    Fleet.Run ok(String... args) {
        Fleet.Run run = fleet.drover(args);
        assertThat(run.exit()).as("drover %s%n%s%s", String.join(" ", args), run.out(), run.err()).isZero();
        return run;
    }

    JsonNode json(String text) throws Exception {
        return Json.json().readTree(text);
    }

    /** Two agents on demo hosts 3 and 4 (module 21, api), enrolled into business 2. */
    void twoAgents() throws Exception {
        ok("inventory", "import", DEMO.toString());
        String token = json(ok("enroll", "create", "test", "--biz", "2", "-o", "json").out()).path("token").asText();
        fleet.agent("web-1", "10.0.1.3", token, Duration.ofSeconds(30));
        fleet.agent("web-2", "10.0.1.4", token, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode agents = json(fleet.drover("agent", "list", "-o", "json").out());
            return agents.size() == 2 && agents.get(0).path("bk_host_id").asLong() > 0 && agents.get(1).path("bk_host_id").asLong() > 0
                    && agents.get(0).path("online").asBoolean() && agents.get(1).path("online").asBoolean();
        });
        // PUB/SUB drops what is sent before the subscription lands: ping until both answer.
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "-L", "web-1,web-2", "test.ping", "--timeout", "3")
                .exit() == 0);
        ok("plugin", "upload", REGISTRY.resolve("demo-exporter").toString());
        ok("plugin", "upload", REGISTRY.resolve("bkmonitorbeat").toString());
    }

    static String spec(String interval) {
        return """
                name: web exporters
                scope: {bk_biz_id: 2, object_type: HOST, node_type: TOPO, nodes: [{bk_obj_id: module, bk_inst_id: 21}]}
                batch_size: 1
                steps:
                  - id: exporter
                    type: PLUGIN
                    config: {plugin_name: demo-exporter, plugin_version: latest}
                    params:
                      context: {scrape_interval: %s, rack: "{{ cmdb_instance.host.rack }}"}
                  - id: beat
                    type: PLUGIN
                    config: {plugin_name: bkmonitorbeat, config_templates: [{name: bkmonitorbeat_script.conf}]}
                    params:
                      context: {period: 30}
                """.formatted(interval);
    }

    long awaitTask(String... subArgs) throws Exception {
        JsonNode tasks = json(ok("sub", "tasks", "1", "-o", "json").out());
        return awaitTask(tasks.get(0).path("id").asLong());
    }

    /** Waits for a task newer than {@code after} (started by a trigger) and for it to end. */
    long awaitNewTask(long after) throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> json(ok("sub", "tasks", "1", "-o", "json").out()).get(0)
                .path("id").asLong() > after);
        return awaitTask();
    }

    long awaitTask(long id) throws Exception {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> !json(ok("task", "show", Long.toString(id), "-o", "json").out()).path("status").asText().equals("RUNNING"));
        return id;
    }

    String serve(int port) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    boolean answers(int port) {
        try {
            serve(port);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    Path exporterDir(String agent, long host) {
        return roots.resolve(agent).resolve("usr/local/gse/external_plugins/sub_1_host_" + host + "/demo-exporter");
    }

    int port(long host) throws Exception {
        for (JsonNode i : json(ok("sub", "instances", "1", "-o", "json").out())) {
            for (JsonNode d : i.path("deployed")) {
                if (d.path("bk_host_id").asLong() == host && d.path("step_id").asText().equals("exporter")) {
                    return d.path("port").asInt();
                }
            }
        }
        throw new AssertionError("no port for host " + host);
    }

    @Test
    void createDeploysEditsConvergeAndDisableEnableStopAndStart() throws Exception {
        twoAgents();
        Path file = roots.resolve("spec.yaml");
        Files.writeString(file, spec("60"));

        Fleet.Run plan = fleet.drover("sub", "create", "-f", file.toString(), "--watch");
        assertThat(plan.exit()).as(plan.out() + plan.err()).isZero();
        assertThat(plan.out()).contains("SUCCESS");
        long task = awaitTask();
        JsonNode detail = json(ok("task", "show", Long.toString(task), "-o", "json").out());
        assertThat(detail.path("status").asText()).as(detail.toPrettyString()).isEqualTo("SUCCESS");

        int port1 = port(3);
        int port2 = port(4);
        assertThat(port1).isBetween(19100, 19199);
        assertThat(port2).isBetween(19100, 19199).isNotEqualTo(port1);
        assertThat(Files.readString(exporterDir("web-1", 3).resolve("etc/exporter.yaml")))
                .contains("listen: \"" + port1 + "\"").contains("scrape_interval: 60").contains("host: api-1");
        assertThat(roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_1_host_3.conf"))
                .content().contains("period: 30s").contains("api-1-disk");
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> serve(port1).contains("host: api-1"));
        assertThat(serve(port2)).contains("host: api-2").contains("scrape_interval: 60");

        assertThat(ok("sub", "plan", "1").out()).contains("NOT_CHANGE").doesNotContain("PUSH_CONFIG");
        assertThat(ok("host", "plugins", "3").out()).contains("demo-exporter").contains("bkmonitorbeat").contains(Integer.toString(port1));
        assertThat(fleet.drover("plugin", "delete", "demo-exporter@1.0.0").err())
                .contains("package demo-exporter 1.0.0 is deployed by subscription(s) [1]");

        // a context edit re-pushes every instance and the process serves the new content
        Files.writeString(file, spec("15"));
        Fleet.Run planned = ok("sub", "plan", "1", "-f", file.toString());
        assertThat(planned.out()).contains("PUSH_CONFIG").contains("CONFIG_CHANGE");
        ok("sub", "update", "1", "-f", file.toString(), "--watch");
        awaitTask();
        await().atMost(Duration.ofSeconds(20)).until(() -> serve(port1).contains("scrape_interval: 15")
                && serve(port2).contains("scrape_interval: 15"));

        // disable stops every process; enable starts them again
        ok("sub", "disable", "1", "--watch");
        awaitTask();
        assertThat(json(ok("sub", "instances", "1", "-o", "json").out()).findValuesAsText("status")).contains("STOPPED");
        await().atMost(Duration.ofSeconds(20)).until(() -> !Files.exists(exporterDir("web-1", 3).resolve("demo-exporter.pid")));
        ok("sub", "enable", "1", "--watch");
        awaitTask();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> serve(port1).contains("scrape_interval: 15"));

        // a CMDB attribute a template uses, edited on one host: only that instance is re-pushed, by the inventory trigger
        long before = awaitTask();
        JsonNode host3 = fleet.server.get("/api/v1/hosts/3", fleet.server.adminToken()).body().deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) host3).put("bk_host_name", "api-1b");
        assertThat(fleet.server.put("/api/v1/hosts/3", fleet.server.adminToken(), host3).status()).isEqualTo(200);
        long edited = awaitNewTask(before);
        JsonNode editTask = json(ok("task", "show", Long.toString(edited), "-o", "json").out());
        assertThat(editTask.path("trigger").asText()).isEqualTo("inventory");
        assertThat(editTask.path("instances").findValuesAsText("instance_id")).containsExactly("host|instance|host|3");
        assertThat(editTask.path("instances").get(0).path("steps").findValuesAsText("action")).containsOnly("PUSH_CONFIG");
        await().atMost(Duration.ofSeconds(20)).until(() -> serve(port1).contains("host: api-1b"));

        // moving host 4 out of the module uninstalls there: process stopped, files gone, port released
        ok("host", "move", "4", "--module", "20");
        awaitNewTask(edited);
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(exporterDir("web-2", 4)));
        assertThat(roots.resolve("web-2/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_1_host_4.conf")).doesNotExist();
        assertThat(ok("host", "plugins", "4").out()).doesNotContain("demo-exporter");
        await().atMost(Duration.ofSeconds(10)).until(() -> !answers(port2));

        // moving host 3 to another business keeps its copy (OUT_OF_BUSINESS) while the subscription lives ...
        assertThat(fleet.server.post("/api/v1/businesses", fleet.server.adminToken(), Map.of("bk_biz_id", 3,
                "bk_biz_name", "elsewhere")).status()).isEqualTo(201);
        ok("host", "move", "3", "--biz", "3");
        assertThat(ok("sub", "plan", "1").out()).contains("SKIP").contains("OUT_OF_BUSINESS");
        assertThat(exporterDir("web-1", 3).resolve("etc/exporter.yaml")).exists();

        // ... and deleting the subscription removes it there too: nothing it deployed is left untracked
        Fleet.Run deleted = ok("sub", "delete", "1", "--watch");
        assertThat(deleted.out()).contains("subscription 1 deleted");
        assertThat(exporterDir("web-1", 3)).doesNotExist();
        assertThat(roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_1_host_3.conf"))
                .doesNotExist();
        await().atMost(Duration.ofSeconds(10)).until(() -> !answers(port1));
    }

    static String beatSpec(String name, String version) {
        return """
                name: %s
                scope: {bk_biz_id: 2, object_type: HOST, node_type: TOPO, nodes: [{bk_obj_id: module, bk_inst_id: 21}]}
                steps:
                  - id: beat
                    type: PLUGIN
                    config: {plugin_name: bkmonitorbeat, plugin_version: "%s", config_templates: [{name: bkmonitorbeat_script.conf}]}
                    params: {context: {period: 30}}
                """.formatted(name, version);
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void anOfficialPluginRunsOneProcessPerHostWhateverTheSubscriptionsAndAnUpgradeReplacesIt() throws Exception {
        twoAgents();
        Path beatDir = roots.resolve("web-1/usr/local/gse/plugins/bin/bkmonitorbeat");
        Path first = roots.resolve("first.yaml");
        Files.writeString(first, beatSpec("first", "2.1.0"));
        assertThat(ok("sub", "create", "-f", first.toString(), "--watch").out()).contains("SUCCESS");
        long pid = Long.parseLong(Files.readString(beatDir.resolve("bkmonitorbeat.pid")).strip());
        assertThat(alive(pid)).isTrue();

        // a second subscription of the same official plugin adds its sub-config and reloads the one process
        Path second = roots.resolve("second.yaml");
        Files.writeString(second, beatSpec("second", "2.1.0"));
        Fleet.Run created = ok("sub", "create", "-f", second.toString(), "--watch");
        assertThat(created.out()).contains("SUCCESS");
        assertThat(Long.parseLong(Files.readString(beatDir.resolve("bkmonitorbeat.pid")).strip())).isEqualTo(pid);
        assertThat(alive(pid)).isTrue();
        assertThat(beatDir.resolve("reloaded_at")).exists();
        assertThat(roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_1_host_3.conf")).exists();
        assertThat(roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_2_host_3.conf")).exists();
        JsonNode task = json(ok("task", "show", Long.toString(json(ok("sub", "tasks", "2", "-o", "json").out()).get(0)
                .path("id").asLong()), "-o", "json").out());
        assertThat(task.toString()).contains("bkmonitorbeat 2.1.0 is installed already").doesNotContain("restart process");

        // removing one subscription removes its sub-config only; the process keeps running for the other
        ok("sub", "delete", "2", "--watch");
        assertThat(roots.resolve("web-1/usr/local/gse/plugins/etc/bkmonitorbeat/bkmonitorbeat_script_sub_2_host_3.conf"))
                .doesNotExist();
        assertThat(alive(pid)).isTrue();

        // an upgrade stops the old process, replaces the package and starts one new process
        Path upgraded = roots.resolve("bkmonitorbeat-2.2.0");
        AddonEndToEndTest.copyTree(REGISTRY.resolve("bkmonitorbeat"), upgraded);
        Files.writeString(upgraded.resolve("metadata.yaml"), Files.readString(upgraded.resolve("metadata.yaml"))
                .replace("version: 2.1.0", "version: 2.2.0"));
        ok("plugin", "upload", upgraded.toString());
        Files.writeString(first, beatSpec("first", "2.2.0"));
        assertThat(ok("sub", "update", "1", "-f", first.toString(), "--watch").out()).contains("SUCCESS");
        long newPid = Long.parseLong(Files.readString(beatDir.resolve("bkmonitorbeat.pid")).strip());
        assertThat(newPid).isNotEqualTo(pid);
        assertThat(alive(newPid)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> !alive(pid));
        assertThat(Files.readString(beatDir.resolve("metadata.yaml"))).contains("version: 2.2.0");
    }

    @Test
    void templatesAreLintedWhenASubscriptionIsRegistered() throws Exception {
        ok("inventory", "import", DEMO.toString());
        Path plugin = roots.resolve("lintcheck");
        AddonEndToEndTest.copyTree(REGISTRY.resolve("bkmonitorbeat"), plugin);
        Files.writeString(plugin.resolve("metadata.yaml"), Files.readString(plugin.resolve("metadata.yaml"))
                .replace("name: bkmonitorbeat", "name: lintcheck"));
        Files.writeString(plugin.resolve("templates/bkmonitorbeat_http.conf.j2"), "type: http\nurl: {{ urll }}\n");
        ok("plugin", "upload", plugin.toString());
        Path file = roots.resolve("lint.yaml");
        Files.writeString(file, """
                name: lint
                scope: {bk_biz_id: 2, object_type: HOST, node_type: TOPO, nodes: [{bk_obj_id: module, bk_inst_id: 21}]}
                steps: [{id: beat, type: PLUGIN, config: {plugin_name: lintcheck}}]
                """);
        Fleet.Run refused = fleet.drover("sub", "create", "-f", file.toString());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("template lintcheck_http.conf").contains("line 2").contains("urll");
        assertThat(ok("sub", "list", "-o", "json").out().strip()).isEqualTo("[ ]");
    }

    @Test
    void anAgentKilledDuringARunFailsItsInstanceClearlyAndRetrySucceedsOnceItIsBack() throws Exception {
        twoAgents();
        Path file = roots.resolve("spec.yaml");
        Files.writeString(file, spec("60").replace("batch_size: 1", "batch_size: 2"));
        String doomedId = "web-2";
        fleet.agents().get(1).close();
        ok("sub", "create", "-f", file.toString());
        Fleet.Run busy = fleet.drover("sub", "run", "1");
        assertThat(busy.exit()).isEqualTo(1);
        assertThat(busy.err()).contains("subscription 1 has task 1 running").contains("409");
        Path service = roots.resolve("service.yaml");
        Files.writeString(service, spec("60").replace("object_type: HOST", "object_type: SERVICE"));
        assertThat(fleet.drover("sub", "update", "1", "-f", service.toString()).err())
                .contains("scope.object_type is fixed when a subscription is created (HOST)").contains("409");
        long task = awaitTask();
        JsonNode detail = json(ok("task", "show", Long.toString(task), "-o", "json").out());
        assertThat(detail.path("status").asText()).isEqualTo("FAILED");
        JsonNode failed = null;
        for (JsonNode i : detail.path("instances")) {
            if (i.path("status").asText().equals("FAILED")) {
                failed = i;
            }
        }
        assertThat(failed).as(detail.toPrettyString()).isNotNull();
        assertThat(failed.path("error").asText()).contains("agent " + doomedId + " did not answer").contains("within 6 s");
        assertThat(detail.path("counts").path("SUCCESS").asInt()).isEqualTo(1);

        fleet.agent(doomedId, doomedId.equals("web-1") ? "10.0.1.3" : "10.0.1.4", null, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "-L", doomedId, "test.ping", "--timeout", "3").exit() == 0);
        Fleet.Run retried = ok("sub", "retry", "1", "--watch");
        assertThat(retried.out()).contains("SUCCESS");
        assertThat(json(ok("sub", "instances", "1", "-o", "json").out()).findValuesAsText("status")).containsOnly("RUNNING");

        // delete uninstalls everywhere first, then the subscription is gone
        Fleet.Run deleted = ok("sub", "delete", "1", "--watch");
        assertThat(deleted.out()).contains("subscription 1 deleted");
        assertThat(exporterDir("web-1", 3)).doesNotExist();
        assertThat(exporterDir("web-2", 4)).doesNotExist();
        await().atMost(Duration.ofSeconds(10)).until(() -> ok("sub", "list", "-o", "json").out().strip().equals("[ ]"));
    }
}

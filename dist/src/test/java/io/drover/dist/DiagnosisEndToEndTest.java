package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alert to recovery with real parts: Prometheus's Alertmanager routes an alert to Drover's webhook (bearer token of
 * an operator), the plugin-down trigger diagnoses the host the alert's {@code instance} names, the check finds the
 * plugin that was killed, the next path restarts it through the agent's supervisor and verifies it, and the repeats
 * Alertmanager sends within the repeat interval start nothing.
 */
class DiagnosisEndToEndTest {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 2, bk_biz_name: shop}]
            sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: web}]
            modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: nginx}]
            hosts:
              - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_host_name: my-node, bk_module_ids: [20]}
            """;

    @TempDir
    Path dir;
    Fleet fleet;
    String admin;
    Alertmanager alertmanager;

    @BeforeEach
    void start() throws Exception {
        Alertmanager.require();
        fleet = new Fleet(TestServer.start(), dir.resolve("agents"));
        admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        JsonNode enroll = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "e", "bk_biz_id", 2)).body();
        fleet.agent("my-node", "10.9.0.1", enroll.path("token").asText(), Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.server.get("/api/v1/agents", admin).body().path(0).path("online").asBoolean()
                && fleet.server.get("/api/v1/agents", admin).body().path(0).path("bk_host_id").asLong() == 1);
    }

    @AfterEach
    void stop() throws Exception {
        if (alertmanager != null) {
            alertmanager.close();
        }
        if (fleet != null) {
            fleet.close();
        }
    }

    /** An exporter registered with the agent's supervisor and started; its pid file. */
    Path startExporter() throws Exception {
        Path root = dir.resolve("agents/my-node");
        Files.createDirectories(root.resolve("opt/exporter"));
        Path pid = root.resolve("var/run/exporter.pid");
        job("proc.register", List.of(), Map.of("name", "exporter", "setup_path", "/opt/exporter", "pid_path", "/var/run/exporter.pid",
                "start_cmd", "nohup sh -c 'echo $$ > " + pid + "; exec sleep 300' >/dev/null 2>&1 &"));
        JsonNode started = job("proc.operate", List.of("exporter", "START"), Map.of());
        assertThat(started.path("status").asText()).isEqualTo("RUNNING");
        return pid;
    }

    JsonNode job(String fun, List<Object> arg, Map<String, Object> kwarg) {
        var r = fleet.server.post("/api/v1/jobs", admin, Map.of("tgt", "my-node", "tgt_type", "list", "fun", fun, "arg", arg, "kwarg", kwarg,
                "timeout", 20));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        String jid = r.body().path("jid").asText();
        JsonNode ret = fleet.server.get("/api/v1/jobs/" + jid + "?wait=20", admin).body().path("returns").path("my-node");
        assertThat(ret.path("retcode").asInt()).as(ret.toString()).isZero();
        return ret.path("ret");
    }

    @Test
    void anAlertThroughAlertmanagerRestartsTheKilledPluginOnce() throws Exception {
        Path pidFile = startExporter();
        long firstPid = Long.parseLong(Files.readString(pidFile).strip());
        ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(firstPid).isEmpty());

        var operator = fleet.server.post("/api/v1/tokens", admin, Map.of("name", "alertmanager", "role", "operator")).body();
        assertThat(fleet.server.put("/api/v1/diagnosis/triggers/plugin-down-alert", admin, Map.of("kind", "Trigger", "spec", Map.of(
                "operationSet", "plugin-down", "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of(
                        "regexp", Map.of("alertName", "^PluginDown$"), "nodeNameReferenceLabel", "instance",
                        "parameterInjectionLabels", List.of("plugin")))))).status()).isEqualTo(200);
        List<JsonNode> receipts = new CopyOnWriteArrayList<>();
        fleet.server.server().bus().subscribe(e -> e.tag().equals("drover/diagnosis/alerts/received"),
                e -> receipts.add(io.drover.model.Json.json().valueToTree(e.data())));
        alertmanager = Alertmanager.start(dir.resolve("am"), fleet.server.url() + "/api/v1/alerts", operator.path("token").asText(), "2s");

        String alert = """
                [{"labels": {"alertname": "PluginDown", "instance": "10.9.0.1:9100", "plugin": "exporter", "severity": "critical"},
                  "annotations": {"summary": "exporter is down"}, "startsAt": "%s"}]""".formatted(Instant.now());
        assertThat(alertmanager.post(alert)).isEqualTo(200);

        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.server.get("/api/v1/diagnoses", admin).body().size() == 1);
        long id = fleet.server.get("/api/v1/diagnoses", admin).body().path(0).path("id").asLong();
        JsonNode diagnosis = fleet.server.get("/api/v1/diagnoses/" + id + "?wait=60", admin).body();
        assertThat(diagnosis.path("phase").asText()).as(diagnosis.toString()).isEqualTo("Succeeded");
        assertThat(diagnosis.path("host_name").asText()).isEqualTo("my-node");
        assertThat(diagnosis.path("trigger").asText()).isEqualTo("plugin-down-alert");
        assertThat(diagnosis.path("failed_paths").toString()).isEqualTo("[[1,2]]");
        assertThat(diagnosis.path("succeeded_path").toString()).isEqualTo("[1,3,4]");
        assertThat(diagnosis.path("operation_results").path("plugin.exporter.status").asText()).isEqualTo("RUNNING");
        assertThat(diagnosis.path("operation_results").path("operation.plugin_processes.output").asText()).contains("PID");

        long newPid = Long.parseLong(Files.readString(pidFile).strip());
        assertThat(newPid).isNotEqualTo(firstPid);
        assertThat(ProcessHandle.of(newPid)).isPresent();
        assertThat(job("proc.operate", List.of("exporter", "QUERY"), Map.of()).path("status").asText()).isEqualTo("RUNNING");

        // Alertmanager sends the same alert again every 2 s: each repeat is within Drover's repeat interval and starts nothing.
        await().atMost(Duration.ofSeconds(30)).until(() -> receipts.stream().filter(r -> r.path("repeated").asInt() == 1).count() >= 2);
        assertThat(fleet.server.get("/api/v1/diagnoses", admin).body().size()).isEqualTo(1);
        assertThat(receipts).allMatch(r -> r.path("caller").asText().equals("alertmanager"));
    }

    @Test
    void aKubeDiagSampleIsAppliedUnchangedAndRunThroughTheCli() throws Exception {
        Path sample = io.drover.core.testing.ReferenceData.dir("kubediag").resolve("config-samples-v0.3.1/disk_usage_script.yaml");
        Fleet.Run applied = fleet.drover("diag", "apply", "-f", sample.toString());
        assertThat(applied.exit()).as(applied.err()).isZero();
        assertThat(applied.out()).contains("Operation disk-usage-script applied", "OperationSet disk-usage-script applied",
                "diagnosis 1 started on my-node");
        // The sample measures /var/lib/kubediag, which this host lacks: du fails, and in Drover a failing script fails its node.
        Fleet.Run status = fleet.drover("diag", "status", "1", "--wait");
        assertThat(status.exit()).isEqualTo(1);
        assertThat(status.out()).contains("path 1 node 1 disk-usage-script FAILED: script: exit status 1", "Failed on my-node",
                "operation.disk_usage.error: exit status 1");

        Path measured = Files.createDirectories(dir.resolve("measured"));
        Files.writeString(measured.resolve("data"), "x".repeat(100_000));
        Fleet.Run run = fleet.drover("diag", "run", "disk-usage-script", "my-node", "-p", "param.operation.disk_usage.path=" + measured,
                "--wait");
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("diagnosis 2 started on my-node", "path 1 node 1 disk-usage-script ok", "Succeeded on my-node",
                measured.toString());
        assertThat(fleet.drover("diag", "list", "operation-sets").out()).contains("plugin-down", "disk-usage-script");
        Fleet.Run bad = fleet.drover("diag", "run", "no-such-set", "my-node");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("spec.operationSet", "'no-such-set' is not an OperationSet");
        assertThat(fleet.drover("diag", "run", "host-overview", "nowhere").err()).contains("'nowhere' is not a host");
        Fleet.Run traversal = fleet.drover("diag", "get", "operation", "../../tokens");
        assertThat(traversal.exit()).as("a name is one path segment, not a way to another route").isNotZero();
        assertThat(traversal.out()).doesNotContain("last_used_at");
    }

    @Test
    void hostileAlertsAndDocumentsAreRefusedNamingTheProblemAndChangeNothing() throws Exception {
        String before = fleet.server.get("/api/v1/diagnoses", admin).text() + fleet.server.get("/api/v1/diagnosis/triggers", admin).text();
        Map<Object, String> refused = new java.util.LinkedHashMap<>();
        refused.put(Map.of("alerts", List.of(Map.of("labels", Map.of("alertname", 7)))), "alerts[0].labels.alertname");
        refused.put(Map.of("alerts", List.of(Map.of("labels", Map.of("alertname", "X"), "fingerprint", "../../x"))),
                "alerts[0].fingerprint");
        refused.put(Map.of("alerts", List.of(Map.of("endsAt", "yesterday"))), "alerts[0].endsAt");
        refused.put(Map.of("alerts", List.of("not an alert")), "alerts[0]");
        refused.put(Map.of("version", "4"), "alerts");
        refused.put(java.util.Collections.nCopies(10_001, Map.of()), "alerts");
        refused.forEach((body, field) -> {
            var r = fleet.server.post("/api/v1/alerts", admin, body);
            assertThat(r.status()).as(field).isEqualTo(422);
            assertThat(r.text()).as(field).contains("\"" + field + "\"");
        });
        // deeply nested, NUL and oversized text are refused before a document is read
        String nested = "[".repeat(5_000) + "]".repeat(5_000);
        assertThat(fleet.server.postRaw("/api/v1/alerts", admin, "application/json", nested).status()).isEqualTo(400);
        assertThat(fleet.server.put("/api/v1/diagnosis/triggers/t", admin, Map.of("kind", "Trigger", "spec",
                Map.of("operationSet", "plugin-down\u0000", "sourceTemplate", Map.of()))).status()).isEqualTo(422);
        var regex = fleet.server.put("/api/v1/diagnosis/triggers/t", admin, Map.of("kind", "Trigger", "spec", Map.of("operationSet",
                "plugin-down", "sourceTemplate", Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", "(".repeat(60)))))));
        assertThat(regex.status()).isEqualTo(422);
        assertThat(regex.text()).contains("spec.sourceTemplate.prometheusAlertTemplate.regexp");
        // a file for `drover diag apply` that is not YAML, or holds something else, is refused naming the file
        Path garbage = Files.writeString(dir.resolve("garbage.yaml"), "kind: [unclosed\n");
        Fleet.Run bad = fleet.drover("diag", "apply", "-f", garbage.toString());
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("cannot read " + garbage);
        Path other = Files.writeString(dir.resolve("other.yaml"), "kind: Deployment\nmetadata: {name: x}\n");
        Fleet.Run wrongKind = fleet.drover("diag", "apply", "-f", other.toString());
        assertThat(wrongKind.exit()).isNotZero();
        assertThat(wrongKind.err()).contains("document 1 is not an Operation, OperationSet, Trigger or Diagnosis");
        assertThat(fleet.server.get("/api/v1/diagnoses", admin).text() + fleet.server.get("/api/v1/diagnosis/triggers", admin).text())
                .as("nothing refused changed anything").isEqualTo(before);
        assertThat(fleet.server.get("/readyz", null).status()).isEqualTo(200);
    }
}

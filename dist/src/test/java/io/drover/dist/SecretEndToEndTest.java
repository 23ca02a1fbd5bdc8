package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A secret passed to a plugin (docs/operations.md, "Secrets for plugins"): stored through the secrets route, referenced by a
 * subscription step, deployed by a real server to a real agent on loopback. The agent's config file holds it; no GET
 * answer of the API, no event of the replayed stream, no line of the audit log, no CLI output and no row of the
 * database does.
 */
class SecretEndToEndTest {
    /** Unique, so that finding it anywhere is a leak; the braces check it is never rendered as a template. */
    static final String MARK = "pw-" + UUID.randomUUID();
    static final String SECRET = MARK + "-{{ 7*7 }}-é";

    Fleet fleet;
    @TempDir
    Path roots;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.INVENTORY_DEBOUNCE_SECONDS, "1",
                Setting.JOB_TIMEOUT_SECONDS, "6")), roots);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    Fleet.Run ok(String... args) {
        Fleet.Run run = fleet.drover(args);
        assertThat(run.exit()).as("drover %s%n%s%s", String.join(" ", args), run.out(), run.err()).isZero();
        return run;
    }

    static JsonNode json(String text) throws Exception {
        return Json.json().readTree(text);
    }

    /** A plugin without a process whose one config file holds a secret parameter. */
    Path vaultClient() throws Exception {
        Path dir = roots.resolve("vault-client");
        Files.createDirectories(dir.resolve("templates"));
        Files.writeString(dir.resolve("metadata.yaml"), """
                name: vault-client
                version: 1.0.0
                description: A client whose config holds a password
                category: external
                os: [linux]
                cpu_arch: [x86_64, aarch64]
                need_delegate: false
                control: {start: "true", stop: "true"}
                config_templates:
                  - {name: client.conf, path: etc, source: templates/client.conf.j2, format: ini, is_main: true}
                parameters:
                  type: object
                  properties:
                    db_user: {type: string, default: app}
                    db_password: {type: string, secret: true}
                """);
        Files.writeString(dir.resolve("templates/client.conf.j2"), """
                user = {{ db_user }}
                password = {{ db_password }}
                host = {{ target.host.bk_host_name }}
                """);
        return dir;
    }

    static String spec(String passwordValue) {
        return """
                name: vault clients
                scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 3}]}
                steps:
                  - id: client
                    type: PLUGIN
                    config: {plugin_name: vault-client}
                    params:
                      context: {db_password: %s}
                """.formatted(passwordValue);
    }

    @Test
    void aSecretReachesTheAgentsFileAndNothingElse() throws Exception {
        ok("inventory", "import", SubscriptionEndToEndTest.DEMO.toString());
        String token = json(ok("enroll", "create", "test", "--biz", "2", "-o", "json").out()).path("token").asText();
        fleet.agent("web-1", "10.0.1.3", token, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode agents = json(fleet.drover("agent", "list", "-o", "json").out());
            return agents.size() == 1 && agents.get(0).path("bk_host_id").asLong() == 3 && agents.get(0).path("online").asBoolean();
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "-L", "web-1", "test.ping", "--timeout", "3").exit() == 0);
        ok("plugin", "upload", vaultClient().toString());

        // A secret parameter given in clear is refused: it would be stored in the subscription.
        Path specFile = roots.resolve("spec.yaml");
        Files.writeString(specFile, spec("\"in clear\""));
        Fleet.Run clear = fleet.drover("sub", "create", "-f", specFile.toString());
        assertThat(clear.exit()).isNotZero();
        assertThat(clear.err()).contains("steps.client.params.context.db_password").contains("secret");

        // A reference to a secret the business does not hold is refused too.
        Files.writeString(specFile, spec("{secret: db_password}"));
        Fleet.Run missing = fleet.drover("sub", "create", "-f", specFile.toString());
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.err()).contains("steps.client.params.context.db_password").contains("no secret 'db_password'");

        Path valueFile = roots.resolve("value.txt");
        Files.writeString(valueFile, SECRET);
        assertThat(ok("secret", "set", "db_password", "--biz", "2", "--from-file", valueFile.toString()).out())
                .contains("db_password").doesNotContain(MARK);
        Files.delete(valueFile);
        assertThat(ok("secret", "list", "--biz", "2").out()).contains("db_password").doesNotContain(MARK);

        ok("sub", "create", "-f", specFile.toString(), "--watch");
        long task = json(ok("sub", "tasks", "1", "-o", "json").out()).get(0).path("id").asLong();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                !json(ok("task", "show", Long.toString(task), "-o", "json").out()).path("status").asText().equals("RUNNING"));
        JsonNode taskJson = json(ok("task", "show", Long.toString(task), "-o", "json").out());
        assertThat(taskJson.path("status").asText()).as(taskJson.toPrettyString()).isEqualTo("SUCCESS");

        // Delivered: the agent's file holds the value as it was given, never rendered as a template.
        Path conf = roots.resolve("web-1/usr/local/gse/external_plugins/sub_1_host_3/vault-client/etc/client.conf");
        assertThat(conf).content().contains("password = " + SECRET).contains("user = app").contains("host = api-1");

        // The job that pushed it is stored with the content redacted.
        List<String> jids = taskJson.findValuesAsText("jid").stream().filter(j -> !j.isEmpty()).distinct().toList();
        assertThat(jids).isNotEmpty();
        String pushed = jids.stream().map(j -> fleet.server.get("/api/v1/jobs/" + j, fleet.server.adminToken()).text())
                .filter(t -> t.contains("client.conf") && t.contains("file.write")).findFirst().orElseThrow();
        assertThat(pushed).contains("«redacted»");

        // Nothing else holds it.
        List<String> leaks = new ArrayList<>();
        Map<String, String> answers = everyGetAnswer(task, jids);
        answers.forEach((route, body) -> {
            if (body.contains(MARK)) {
                leaks.add("GET " + route);
            }
        });
        assertThat(answers.keySet()).as("the routes read").contains("/api/v1/subscriptions/1", "/api/v1/tasks/" + task,
                "/api/v1/jobs/" + jids.getFirst(), "/api/v1/audit", "/api/v1/subscriptions/1/plan", "/api/v1/hosts/3/plugins",
                "/api/v1/subscriptions/1/instances", "/api/v1/businesses/2/secrets");
        if (replayedEvents().contains(MARK)) {
            leaks.add("the event stream replayed from the start");
        }
        for (String[] cli : List.of(new String[] {"sub", "show", "1"}, new String[] {"sub", "show", "1", "-o", "json"},
                new String[] {"task", "show", Long.toString(task)}, new String[] {"task", "show", Long.toString(task), "-o", "json"},
                new String[] {"sub", "plan", "1"}, new String[] {"sub", "instances", "1"}, new String[] {"audit"},
                new String[] {"host", "plugins", "3"})) {
            Fleet.Run run = fleet.drover(cli);
            if ((run.out() + run.err()).contains(MARK)) {
                leaks.add("drover " + String.join(" ", cli));
            }
        }
        String dump = databaseDump();
        assertThat(dump).contains("vault-client").contains("«redacted»");
        if (dump.contains(MARK)) {
            leaks.add("the database: " + dump.lines().filter(l -> l.contains(MARK)).map(l -> l.length() > 200 ? l.substring(0, 200) : l).toList());
        }
        assertThat(leaks).isEmpty();
        // The plan is stable: the secret's digest matches what was deployed.
        assertThat(ok("sub", "plan", "1").out()).contains("NOT_CHANGE").doesNotContain("PUSH_CONFIG");

        // A changed secret changes the plan (its stamp, not its value, is in the digest) and reaches the agent.
        Files.writeString(valueFile, SECRET + "-rotated\n");
        ok("secret", "set", "db_password", "--biz", "2", "--from-file", valueFile.toString());
        assertThat(ok("sub", "plan", "1").out()).contains("PUSH_CONFIG").doesNotContain(MARK);
        ok("sub", "run", "1", "--watch");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(conf).contains("password = " + SECRET + "-rotated\n"));
        assertThat(databaseDump()).doesNotContain(MARK);

        // A secret a subscription references is not deleted from under it.
        Fleet.Run delete = fleet.drover("secret", "delete", "db_password", "--biz", "2");
        assertThat(delete.exit()).isNotZero();
        assertThat(delete.err()).contains("referenced by subscription(s) [1]");
    }

    /** Every GET route of the OpenAPI document, with its path filled from this run (routes that cannot be are left out). */
    Map<String, String> everyGetAnswer(long task, List<String> jids) {
        Map<String, List<String>> fixtures = new LinkedHashMap<>();
        fixtures.put("{bk_biz_id}", List.of("2"));
        fixtures.put("{bk_host_id}", List.of("3"));
        fixtures.put("{bk_module_id}", List.of("21"));
        fixtures.put("{jid}", jids);
        fixtures.put("/subscriptions/{id}", List.of("1"));
        fixtures.put("/tasks/{id}", List.of(Long.toString(task)));
        fixtures.put("/hosts/{id}", List.of("3"));
        fixtures.put("/agents/{id}", List.of("web-1"));
        fixtures.put("/keys/{id}", List.of("web-1"));
        fixtures.put("/packages/{name}/{version}", List.of("vault-client/1.0.0"));
        fixtures.put("/packages/{name}", List.of("vault-client"));
        Map<String, String> answers = new LinkedHashMap<>();
        JsonNode paths = fleet.server.get("/api/v1/openapi.json", null).body().path("paths");
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            if (!path.getValue().has("get") || path.getKey().endsWith("/events")) {
                continue;
            }
            for (String filled : fill(path.getKey(), fixtures)) {
                Response r = fleet.server.get(filled, fleet.server.adminToken());
                answers.put(filled, r.text() == null ? "" : r.text());
            }
        }
        return answers;
    }

    static List<String> fill(String template, Map<String, List<String>> fixtures) {
        List<String> out = new ArrayList<>(List.of(template));
        for (Map.Entry<String, List<String>> fixture : fixtures.entrySet()) {
            String key = fixture.getKey();
            List<String> next = new ArrayList<>();
            for (String path : out) {
                int at = path.indexOf(key);
                if (at < 0) {
                    next.add(path);
                    continue;
                }
                for (String value : fixture.getValue()) {
                    String replaced = key.startsWith("/")
                            ? key.substring(0, key.indexOf('{')) + value
                            : value;
                    next.add(path.substring(0, at) + replaced + path.substring(at + key.length()));
                }
            }
            out = next;
        }
        return out.stream().filter(p -> !p.contains("{") && !p.contains("<")).toList();
    }

    /** The event stream replayed from the first stored event up to where it starts following. */
    String replayedEvents() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fleet.server.url() + "/api/v1/events?since=0"))
                .header("Authorization", "Bearer " + fleet.server.adminToken()).header("Accept", "text/event-stream").build();
        HttpResponse<java.io.InputStream> r = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder seen = new StringBuilder();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(r.body(), java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null && !line.startsWith(": subscribed")) {
                seen.append(line).append('\n');
            }
        }
        assertThat(seen.toString()).contains("salt/job/").contains("file.write");
        return seen.toString();
    }

    /** Every row of every table, one line per row with every column as text (BLOBs as UTF-8). */
    String databaseDump() {
        return fleet.server.server().database().jdbi().withHandle(h -> {
            StringBuilder dump = new StringBuilder();
            for (String table : h.createQuery("SELECT name FROM sqlite_master WHERE type = 'table'").mapTo(String.class).list()) {
                h.createQuery("SELECT * FROM \"" + table + "\"").map((rs, ctx) -> {
                    StringBuilder row = new StringBuilder(table);
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        Object value = rs.getObject(i);
                        row.append(" | ").append(value instanceof byte[] bytes
                                ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : value);
                    }
                    return row.toString();
                }).forEach(line -> dump.append(line).append('\n'));
            }
            return dump.toString();
        });
    }
}

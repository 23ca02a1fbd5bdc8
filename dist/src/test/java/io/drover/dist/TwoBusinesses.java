package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real server with two real agents and two businesses: one ("inside", 2) that the scoped tokens cover, one
 * ("outside", 7) that they do not, each with a set, a module, a host with its agent, a service instance, an
 * enrollment token, a job and a subscription with a task; tokens of each role, scoped to business 2 and not; and the
 * API's routes read from its OpenAPI document, with their paths filled for either business.
 */
final class TwoBusinesses implements AutoCloseable {
    static final String INVENTORY = """
            businesses: [{bk_biz_id: 2, bk_biz_name: inside}, {bk_biz_id: 7, bk_biz_name: outside}]
            sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: in-set}, {bk_set_id: 70, bk_biz_id: 7, bk_set_name: out-set}]
            modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: in-mod}, {bk_module_id: 71, bk_set_id: 70, bk_module_name: out-mod}]
            hosts:
              - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_host_name: in-host, bk_module_ids: [20]}
              - {bk_host_id: 7001, bk_biz_id: 7, bk_host_innerip: 10.9.7.1, bk_host_name: out-host, bk_module_ids: [71]}
            service_instances:
              - {id: 100, name: in-svc, bk_module_id: 20, bk_host_id: 1}
              - {id: 700, name: out-svc, bk_module_id: 71, bk_host_id: 7001}
            """;
    /** The outside business's id and those of its set, module, host and service instance. */
    static final List<Long> OUTSIDE_IDS = List.of(7L, 70L, 71L, 7001L, 700L);
    /** What no answer to a scoped token may contain: names, ids and addresses of the outside business. */
    static final List<String> OUTSIDE_MARKERS = List.of("out-", "outside", "10.9.7.1", "\"bk_biz_id\":7,", "\"bk_biz_id\":7}");
    static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    final Fleet fleet;
    final String admin;
    final Map<String, String> scoped = new LinkedHashMap<>();
    final Map<String, String> unscoped = new LinkedHashMap<>();
    final Map<String, String[]> ids = new LinkedHashMap<>();

    TwoBusinesses(Path roots) throws Exception {
        fleet = new Fleet(TestServer.start(), roots);
        admin = fleet.server.adminToken();
        assertThat(fleet.server.postRaw("/api/v1/inventory/import", admin, "application/yaml", INVENTORY).status()).isEqualTo(200);
        String[] enroll = new String[2];
        int i = 0;
        for (long biz : new long[] {2, 7}) {
            JsonNode created = fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "e" + biz, "bk_biz_id", biz)).body();
            enroll[i++] = created.path("info").path("id").asText();
            String agent = biz == 2 ? "in-1" : "out-1";
            fleet.agent(agent, biz == 2 ? "10.9.0.1" : "10.9.7.1", created.path("token").asText(), Duration.ofSeconds(30));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode agents = fleet.server.get("/api/v1/agents", admin).body();
            return agents.size() == 2 && agents.get(0).path("bk_host_id").asLong() > 0 && agents.get(1).path("bk_host_id").asLong() > 0;
        });
        String jidIn = job("in-1");
        String jidOut = job("out-1");
        String planIn = plan("in-1");
        String planOut = plan("out-1");
        String diagnosisIn = diagnosis(1);
        String diagnosisOut = diagnosis(7001);
        assertThat(fleet.server.put("/api/v1/diagnosis/triggers/matrix", admin, matrixTrigger()).status()).isEqualTo(200);
        assertThat(fleet.drover("plugin", "upload", "../examples/registry/bkmonitorbeat").exit()).isZero();
        String version = fleet.server.get("/api/v1/packages", admin).body().get(0).path("version").asText();
        for (long biz : new long[] {2, 7}) {
            assertThat(fleet.server.put("/api/v1/businesses/" + biz + "/secrets/matrix", admin, Map.of("value", "v" + biz)).status())
                    .isEqualTo(200);
        }
        String subIn = subscription(2, 1);
        String subOut = subscription(7, 7001);
        String taskIn = lastTask(subIn);
        String taskOut = lastTask(subOut);

        // Admin tokens cover every business by construction (a scoped one is refused at creation).
        for (String role : List.of("viewer", "operator", "alerts")) {
            scoped.put(role, token("scoped-" + role, role, List.of(2)));
            unscoped.put(role, token("all-" + role, role, List.of()));
        }
        assertThat(fleet.server.post("/api/v1/tokens", admin, Map.of("name", "x", "role", "admin", "bk_biz_ids", List.of(2)))
                .status()).isEqualTo(422);
        String someToken = fleet.server.get("/api/v1/tokens", admin).body().get(1).path("id").asText();

        ids.put("{bk_biz_id}", new String[] {"2", "7"});
        ids.put("{bk_set_id}", new String[] {"10", "70"});
        ids.put("{bk_module_id}", new String[] {"20", "71"});
        ids.put("{bk_host_id}", new String[] {"1", "7001"});
        ids.put("{jid}", new String[] {jidIn, jidOut});
        ids.put("/plans/{id}", new String[] {planIn, planOut});
        ids.put("/diagnoses/{id}", new String[] {diagnosisIn, diagnosisOut});
        ids.put("/diagnosis/operations/{name}", new String[] {"disk-usage", "disk-usage"});
        ids.put("/diagnosis/operation-sets/{name}", new String[] {"host-overview", "host-overview"});
        ids.put("/diagnosis/triggers/{name}", new String[] {"matrix", "matrix"});
        ids.put("/service-instances/{id}", new String[] {"100", "700"});
        ids.put("/subscriptions/{id}", new String[] {subIn, subOut});
        ids.put("/tasks/{id}", new String[] {taskIn, taskOut});
        ids.put("/hosts/{id}", new String[] {"1", "7001"});
        ids.put("/agents/{id}", new String[] {"in-1", "out-1"});
        ids.put("/keys/{id}", new String[] {"in-1", "out-1"});
        ids.put("/enrollment-tokens/{id}", new String[] {enroll[0], enroll[1]});
        ids.put("/agent-installs/{id}", new String[] {agentInstall(2), agentInstall(7)});
        // host keys are server-wide (no business): one recorded as a first contact would, that refused forgets leave
        new io.drover.server.agentinstall.HostKeyStore(fleet.server.server().database().jdbi(), java.time.Clock.systemUTC())
                .check("127.0.0.1", 1, "ssh-ed25519", "SHA256:matrix-host-key");
        ids.put("/agent-installs/host-keys/{address}/{port}", new String[] {"127.0.0.1/1", "127.0.0.1/1"});
        AgentUpgradeTest.uploadAgentPackages(fleet, roots, "9.9.9");
        ids.put("/agent-upgrades/{id}", new String[] {agentUpgrade(2), agentUpgrade(7)});
        ids.put("/tokens/{id}", new String[] {someToken, someToken});
        ids.put("/addons/{name}", new String[] {"bkmonitorbeat", "bkmonitorbeat"});
        ids.put("/registries/{name}", new String[] {"nope", "nope"});
        ids.put("/secrets/{name}", new String[] {"matrix", "matrix"});
        ids.put("/packages/{name}/{version}", new String[] {"bkmonitorbeat/" + version, "bkmonitorbeat/" + version});
        ids.put("/agent-packages/{version}/{arch}", new String[] {"latest/x86_64", "latest/x86_64"});
    }

    @Override
    public void close() {
        fleet.close();
    }

    /** An install over SSH into {@code biz} of a host nobody listens on (it fails at once); {@code hostId}: its inventory host. */
    static Map<String, Object> agentInstallBody(long biz, Long hostId) {
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("address", "127.0.0.1");
        host.put("port", 1);
        host.put("id", biz == 2 ? "in-ssh" : "out-ssh");
        if (hostId != null) {
            host.put("bk_host_id", hostId);
        }
        return Map.of("hosts", List.of(host), "ssh_user", "root", "ssh_password", "x", "bk_biz_id", biz,
                "masters", List.of("127.0.0.1:1"));
    }

    /** An ended install task in {@code biz}: its id. */
    String agentInstall(long biz) {
        Response r = fleet.server.post("/api/v1/agent-installs", admin, agentInstallBody(biz, null));
        assertThat(r.status()).as(r.text()).isEqualTo(202);
        String id = r.body().path("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> !fleet.server.get("/api/v1/agent-installs/" + id, admin).body()
                .path("status").asText().equals("running"));
        return id;
    }

    /** An upgrade of the agent of {@code biz} to 9.9.9 ({@code bk_biz_id} of the body: {@code bodyBiz}). */
    static Map<String, Object> agentUpgradeBody(long agentBiz, long bodyBiz) {
        return Map.of("tgt", agentBiz == 2 ? "in-1" : "out-1", "tgt_type", "list", "version", "9.9.9", "bk_biz_id", bodyBiz);
    }

    /** An ended upgrade in {@code biz} (its agent refuses agent.upgrade: it runs from no installed layout): its id. */
    String agentUpgrade(long biz) {
        Response r = fleet.server.post("/api/v1/agent-upgrades", admin, agentUpgradeBody(biz, biz));
        assertThat(r.status()).as(r.text()).isEqualTo(202);
        String id = r.body().path("id").asText();
        await().atMost(Duration.ofSeconds(60)).until(() -> !fleet.server.get("/api/v1/agent-upgrades/" + id, admin).body()
                .path("status").asText().equals("running"));
        return id;
    }

    String token(String name, String role, List<Integer> biz) {
        Response r = fleet.server.post("/api/v1/tokens", admin, Map.of("name", name, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    String job(String agent) {
        Response r = fleet.server.post("/api/v1/jobs", admin, Map.of("tgt", agent, "tgt_type", "list", "fun", "test.ping"));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        String jid = r.body().path("jid").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> fleet.server.get("/api/v1/jobs/" + jid, admin).body().path("returns").size() == 1);
        return jid;
    }

    /** A plan run on one agent, finished. */
    String plan(String agent) {
        Response r = fleet.server.post("/api/v1/plans", admin, Map.of("tgt", agent, "tgt_type", "list", "plan", planDocument()));
        assertThat(r.status()).as(r.text()).isEqualTo(202);
        String id = r.body().path("id").asText();
        await().atMost(Duration.ofSeconds(20)).until(() -> fleet.server.get("/api/v1/plans/" + id, admin).body().path("status")
                .asText().equals("SUCCEEDED"));
        return id;
    }

    /** A diagnosis of one host, finished. */
    String diagnosis(long host) {
        Response r = fleet.server.post("/api/v1/diagnoses", admin, diagnosisDocument(host));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        String id = r.body().path("diagnoses").get(0).path("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> fleet.server.get("/api/v1/diagnoses/" + id, admin).body().path("phase")
                .asText().matches("Succeeded|Failed"));
        return id;
    }

    static Map<String, Object> diagnosisDocument(long host) {
        return Map.of("kind", "Diagnosis", "metadata", Map.of("name", "matrix"), "spec", Map.of("operationSet", "host-overview",
                "hosts", List.of(host)));
    }

    static Map<String, Object> matrixTrigger() {
        return Map.of("kind", "Trigger", "spec", Map.of("operationSet", "host-overview", "sourceTemplate",
                Map.of("prometheusAlertTemplate", Map.of("regexp", Map.of("alertName", "^MatrixDown$"), "nodeNameReferenceLabel", "instance"))));
    }

    /** An alert the matrix trigger matches, naming a host of the outside business. */
    static Map<String, Object> outsideAlert() {
        return Map.of("alerts", List.of(Map.of("status", "firing", "labels", Map.of("alertname", "MatrixDown", "instance", "10.9.7.1:9100"))));
    }

    static Map<String, Object> planDocument() {
        return Map.of("FormatVersion", "2.0.0", "Body", "return 1");
    }

    Map<String, Object> subscriptionSpec(long biz, long host) {
        return Map.of("name", "sub-" + biz, "scope", Map.of("bk_biz_id", biz, "object_type", "HOST", "node_type", "INSTANCE",
                        "nodes", List.of(Map.of("bk_host_id", host))),
                "steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                        "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf"))))));
    }

    String subscription(long biz, long host) {
        Response r = fleet.server.post("/api/v1/subscriptions", admin, subscriptionSpec(biz, host));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("subscription").path("id").asText();
    }

    String lastTask(String subscription) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode tasks = fleet.server.get("/api/v1/subscriptions/" + subscription + "/tasks", admin).body();
            return tasks.size() > 0 && !List.of("PENDING", "RUNNING").contains(tasks.get(0).path("status").asText());
        });
        return fleet.server.get("/api/v1/subscriptions/" + subscription + "/tasks", admin).body().get(0).path("id").asText();
    }

    record Operation(String method, String path, String role, String scope, String bodySchema) {
        String label() {
            return method.toUpperCase(java.util.Locale.ROOT) + " " + path + " (" + role + ", " + scope + ")";
        }
    }

    List<Operation> operations() {
        JsonNode paths = fleet.server.get("/api/v1/openapi.json", null).body().path("paths");
        List<Operation> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            path.getValue().fields().forEachRemaining(op -> out.add(new Operation(op.getKey(), path.getKey(),
                    op.getValue().path("x-drover-role").asText(null), op.getValue().path("x-drover-scope").asText("none"),
                    op.getValue().at("/requestBody/content/application~1json/schema/$ref").asText(null))));
        }
        return out;
    }

    /** The path with every parameter filled for the inside (0) or outside (1) business; fails on a route without fixture. */
    String fill(String template, int side) {
        for (Map.Entry<String, String[]> fixture : ids.entrySet()) {
            String key = fixture.getKey();
            int at = template.indexOf(key);
            if (key.startsWith("/") && at >= 0) {
                template = template.substring(0, at) + "/" + key.substring(1).replaceAll("\\{[^}]+}(/\\{[^}]+})?", "")
                        + fixture.getValue()[side] + template.substring(at + key.length());
            } else if (!key.startsWith("/")) {
                template = template.replace(key, fixture.getValue()[side]);
            }
        }
        Matcher left = PATH_PARAM.matcher(template);
        if (left.find()) {
            fail("no fixture for " + left.group() + " in " + template + ": add the route's objects to this test");
        }
        return template;
    }

    /** A body that would be valid for the outside object, so that only authorization can refuse it. */
    Object outsideBody(Operation op, String path) {
        String p = op.path().replace("/api/v1", "");
        return switch (op.method() + " " + p) {
            case "post /businesses" -> Map.of("bk_biz_id", 99, "bk_biz_name", "new-biz");
            case "post /sets" -> Map.of("bk_set_id", 77, "bk_biz_id", 7, "bk_set_name", "x");
            case "post /modules" -> Map.of("bk_module_id", 77, "bk_set_id", 70, "bk_module_name", "x");
            case "post /hosts" -> Map.of("bk_host_id", 7777, "bk_biz_id", 7, "bk_host_innerip", "10.9.7.77");
            case "post /hosts/{bk_host_id}/move" -> Map.of("bk_module_ids", List.of(71));
            case "post /service-instances" -> Map.of("id", 777, "name", "x", "bk_module_id", 71, "bk_host_id", 7001);
            case "post /inventory/import" -> Map.of("hosts", List.of(Map.of("bk_host_id", 7001, "bk_biz_id", 7,
                    "bk_host_innerip", "10.9.7.1", "bk_host_name", "changed")));
            case "post /jobs" -> Map.of("tgt", "out-1", "tgt_type", "list", "fun", "cmd.run", "arg", List.of("id"));
            case "post /plans" -> Map.of("tgt", "out-1", "tgt_type", "list", "plan", planDocument());
            case "post /diagnoses" -> diagnosisDocument(7001);
            case "post /alerts" -> outsideAlert();
            case "post /subscriptions", "post /subscriptions/{id}/plan", "put /subscriptions/{id}" -> subscriptionSpec(7, 7001);
            case "post /enrollment-tokens" -> Map.of("name", "x", "bk_biz_id", 7);
            case "post /agent-installs" -> agentInstallBody(7, null);
            case "post /agent-upgrades" -> agentUpgradeBody(7, 7);
            case "post /agent-installs/{id}/retry" -> Map.of("ssh_password", "x");
            case "post /tokens" -> Map.of("name", "x", "role", "admin", "bk_biz_ids", List.of());
            case "post /registries" -> Map.of("name", "x", "type", "local", "url", "/tmp");
            case "post /addons", "post /addons/{name}/upgrade" -> Map.of("addon", "bkmonitorbeat");
            case "put /businesses/{bk_biz_id}/secrets/{name}" -> Map.of("value", "matrix-value");
            default -> op.method().equals("put") ? fleet.server.get(path, admin).body() : Map.of();
        };
    }

    /** A body whose field {@code field} (a schema path, as {@link #businessFields} writes it) names an outside object. */
    record Variant(String field, Object body) {
    }

    /** Property names that name a business or an object of one (a set, module, host, address, service, target). */
    static final java.util.Set<String> BUSINESS_FIELDS = java.util.Set.of("bk_biz_id", "bk_biz_ids", "bk_set_id", "bk_module_id",
            "bk_module_ids", "bk_host_id", "bk_inst_id", "ip", "tgt", "instance_selector", "hosts");

    /**
     * The business-bearing fields of a body schema ({@code #/components/schemas/X}), read from the OpenAPI document:
     * dotted paths, {@code []} for the items of a list ({@code scope.nodes[].bk_host_id}).
     */
    List<String> businessFields(String ref) {
        JsonNode schemas = fleet.server.get("/api/v1/openapi.json", null).body().path("components").path("schemas");
        List<String> out = new ArrayList<>();
        walk(schemas, schemas.path(ref.substring(ref.lastIndexOf('/') + 1)), "", out, new java.util.HashSet<>());
        return out;
    }

    private static void walk(JsonNode schemas, JsonNode schema, String at, List<String> out, java.util.Set<String> seen) {
        if (schema.has("$ref")) {
            String name = schema.path("$ref").asText().substring("#/components/schemas/".length());
            if (seen.add(name)) {
                walk(schemas, schemas.path(name), at, out, seen);
                seen.remove(name);
            }
            return;
        }
        if (schema.has("items")) {
            walk(schemas, schema.path("items"), at + "[]", out, seen);
            return;
        }
        schema.path("properties").fields().forEachRemaining(p -> {
            String path = at.isEmpty() ? p.getKey() : at + "." + p.getKey();
            boolean records = p.getValue().has("$ref") || p.getValue().path("items").has("$ref"); // a list of hosts, say
            if (BUSINESS_FIELDS.contains(p.getKey()) && !records) {
                out.add(path);
            }
            walk(schemas, p.getValue(), path, out, seen);
        });
    }

    /**
     * For a route of business scope below admin that takes a body: bodies for the inside objects of its path, each
     * naming an outside object in one business-bearing field; null for a route this test has none for.
     */
    List<Variant> outsideFieldBodies(Operation op) {
        String p = op.path().replace("/api/v1", "");
        Map<String, Object> host1 = Map.of("bk_host_id", 1, "bk_biz_id", 2, "bk_host_innerip", "10.9.0.1", "bk_host_name", "in-host",
                "bk_module_ids", List.of(20));
        return switch (op.method() + " " + p) {
            case "post /jobs/{jid}/cancel" -> List.of(new Variant("targets", Map.of("targets", List.of("out-1"))),
                    new Variant("targets", Map.of("targets", List.of("in-1", "out-1"))));
            case "post /businesses", "put /businesses/{bk_biz_id}" -> List.of(new Variant("bk_biz_id", Map.of("bk_biz_id", 7,
                    "bk_biz_name", "outside")));
            case "post /sets", "put /sets/{bk_set_id}" -> List.of(
                    new Variant("bk_biz_id", Map.of("bk_set_id", p.equals("/sets") ? 11 : 10, "bk_biz_id", 7, "bk_set_name", "x")),
                    new Variant("bk_set_id", Map.of("bk_set_id", 70, "bk_biz_id", 2, "bk_set_name", "x")));
            case "post /modules", "put /modules/{bk_module_id}" -> List.of(
                    new Variant("bk_set_id", Map.of("bk_module_id", p.equals("/modules") ? 21 : 20, "bk_set_id", 70, "bk_module_name", "x")),
                    new Variant("bk_biz_id", Map.of("bk_module_id", p.equals("/modules") ? 21 : 20, "bk_set_id", 10, "bk_biz_id", 7,
                            "bk_module_name", "x")),
                    new Variant("bk_module_id", Map.of("bk_module_id", 71, "bk_set_id", 10, "bk_module_name", "x")));
            case "post /hosts", "put /hosts/{bk_host_id}" -> {
                // a new host needs an id of its own, or "host 1 already exists" answers before the field is looked at
                Map<String, Object> host = p.equals("/hosts") ? with(host1, "bk_host_id", 9) : host1;
                yield List.of(new Variant("bk_biz_id", with(host, "bk_biz_id", 7)),
                        new Variant("bk_module_ids", with(host, "bk_module_ids", List.of(71))),
                        new Variant("bk_host_id", with(with(host, "bk_host_id", 7001), "bk_host_innerip", "10.9.7.1")),
                        // the outside host's address: taken, without naming the host that has it
                        new Variant("bk_host_innerip", with(host, "bk_host_innerip", "10.9.7.1")));
            }
            case "post /hosts/{bk_host_id}/move" -> List.of(new Variant("bk_biz_id", Map.of("bk_biz_id", 7)),
                    new Variant("bk_module_ids", Map.of("bk_module_ids", List.of(71))));
            case "post /service-instances", "put /service-instances/{id}" -> {
                Map<String, Object> svc = Map.of("id", p.equals("/service-instances") ? 101 : 100, "name", "x", "bk_module_id", 20,
                        "bk_host_id", 1);
                yield List.of(new Variant("bk_module_id", with(svc, "bk_module_id", 71)), new Variant("bk_host_id", with(svc, "bk_host_id", 7001)),
                        new Variant("bk_biz_id", with(svc, "bk_biz_id", 7)));
            }
            case "post /inventory/import" -> List.of(
                    new Variant("businesses[].bk_biz_id", Map.of("businesses", List.of(Map.of("bk_biz_id", 7, "bk_biz_name", "renamed")))),
                    new Variant("sets[].bk_set_id", Map.of("sets", List.of(Map.of("bk_set_id", 70, "bk_biz_id", 2, "bk_set_name", "x")))),
                    new Variant("sets[].bk_biz_id", Map.of("sets", List.of(Map.of("bk_set_id", 11, "bk_biz_id", 7, "bk_set_name", "x")))),
                    new Variant("modules[].bk_module_id", Map.of("modules", List.of(Map.of("bk_module_id", 71, "bk_set_id", 10,
                            "bk_module_name", "x")))),
                    new Variant("modules[].bk_set_id", Map.of("modules", List.of(Map.of("bk_module_id", 21, "bk_set_id", 70,
                            "bk_module_name", "x")))),
                    new Variant("modules[].bk_biz_id", Map.of("modules", List.of(Map.of("bk_module_id", 21, "bk_set_id", 10,
                            "bk_biz_id", 7, "bk_module_name", "x")))),
                    new Variant("hosts[].bk_host_id", Map.of("hosts", List.of(with(host1, "bk_host_id", 7001)))),
                    new Variant("hosts[].bk_biz_id", Map.of("hosts", List.of(with(with(with(host1, "bk_host_id", 9), "bk_biz_id", 7),
                            "bk_host_innerip", "10.9.0.9")))),
                    new Variant("hosts[].bk_module_ids", Map.of("hosts", List.of(with(host1, "bk_module_ids", List.of(71))))),
                    new Variant("service_instances[].bk_biz_id", Map.of("service_instances", List.of(Map.of("id", 100, "name", "in-svc",
                            "bk_module_id", 20, "bk_host_id", 1, "bk_biz_id", 7)))),
                    new Variant("service_instances[].bk_module_id", Map.of("service_instances", List.of(Map.of("id", 100, "name", "in-svc",
                            "bk_module_id", 71, "bk_host_id", 1)))),
                    new Variant("service_instances[].bk_host_id", Map.of("service_instances", List.of(Map.of("id", 100, "name", "in-svc",
                            "bk_module_id", 20, "bk_host_id", 7001)))));
            case "post /jobs" -> List.of(new Variant("tgt", Map.of("tgt", "out-1", "tgt_type", "list", "fun", "test.ping")));
            case "post /plans" -> List.of(new Variant("tgt", Map.of("tgt", "out-1", "tgt_type", "list", "plan", planDocument())));
            case "post /diagnoses" -> List.of(new Variant("spec.hosts", diagnosisDocument(7001)));
            // The alert webhook answers a batch naming outside hosts with what it skipped: checked by the route matrix.
            case "post /alerts" -> List.of();
            // A secret's body holds only its value: its business is the path's, which the route matrix checks.
            case "put /businesses/{bk_biz_id}/secrets/{name}" -> List.of();
            // Instance ids are looked up among the subscription's own instances only.
            case "post /subscriptions/{id}/run", "post /subscriptions/{id}/retry" -> List.of();
            case "post /agent-installs" -> List.of(new Variant("bk_biz_id", agentInstallBody(7, null)),
                    new Variant("hosts[].bk_host_id", agentInstallBody(2, 7001L)));
            // A retry's body holds credentials only: its task's business is checked by the route matrix.
            case "post /agent-installs/{id}/retry" -> List.of();
            case "post /agent-upgrades" -> List.of(new Variant("bk_biz_id", agentUpgradeBody(2, 7)),
                    new Variant("tgt", agentUpgradeBody(7, 2)));
            case "post /subscriptions", "put /subscriptions/{id}", "post /subscriptions/{id}/plan" -> subscriptionVariants();
            default -> null;
        };
    }

    private static Map<String, Object> with(Map<String, Object> body, String key, Object value) {
        Map<String, Object> out = new LinkedHashMap<>(body);
        out.put(key, value);
        return out;
    }

    /** The inside subscription's body (business 2, host 1) with one field naming business 7 or one of its objects. */
    List<Variant> subscriptionVariants() {
        Map<String, Object> inside = subscriptionSpec(2, 1);
        java.util.function.BiFunction<String, List<Map<String, Object>>, Map<String, Object>> nodes = (type, list) ->
                with(inside, "scope", Map.of("bk_biz_id", 2, "object_type", type.startsWith("SERVICE") ? "SERVICE" : "HOST",
                        "node_type", type.endsWith("TOPO") ? "TOPO" : "INSTANCE", "nodes", list));
        List<Map<String, Object>> host1 = List.of(Map.of("bk_host_id", 1));
        return List.of(
                new Variant("scope.bk_biz_id", with(inside, "scope", Map.of("bk_biz_id", 7, "object_type", "HOST", "node_type", "INSTANCE",
                        "nodes", List.of(Map.of("bk_host_id", 7001))))),
                new Variant("scope.nodes[].bk_biz_id", nodes.apply("HOST TOPO", List.of(Map.of("bk_obj_id", "module", "bk_inst_id", 20,
                        "bk_biz_id", 7)))),
                new Variant("scope.nodes[].bk_inst_id", nodes.apply("HOST TOPO", List.of(Map.of("bk_obj_id", "module", "bk_inst_id", 71)))),
                new Variant("scope.nodes[].bk_inst_id", nodes.apply("HOST TOPO", List.of(Map.of("bk_obj_id", "set", "bk_inst_id", 70)))),
                new Variant("scope.nodes[].bk_inst_id", nodes.apply("HOST TOPO", List.of(Map.of("bk_obj_id", "biz", "bk_inst_id", 7)))),
                new Variant("scope.nodes[].bk_host_id", nodes.apply("HOST INSTANCE", List.of(Map.of("bk_host_id", 7001)))),
                new Variant("scope.nodes[].ip", nodes.apply("HOST INSTANCE", List.of(Map.of("ip", "10.9.7.1", "bk_cloud_id", 0)))),
                new Variant("scope.nodes[].id", nodes.apply("SERVICE INSTANCE", List.of(Map.of("id", 700)))),
                new Variant("scope.instance_selector", with(inside, "scope", Map.of("bk_biz_id", 2, "object_type", "HOST",
                        "node_type", "INSTANCE", "nodes", host1, "instance_selector", Map.of("host.bk_host_id", 7001)))),
                new Variant("target_hosts[].bk_host_id", with(inside, "target_hosts", List.of(Map.of("bk_host_id", 7001)))),
                new Variant("target_hosts[].ip", with(inside, "target_hosts", List.of(Map.of("ip", "10.9.7.1", "bk_cloud_id", 0)))),
                new Variant("target_hosts[].bk_biz_id", with(inside, "target_hosts", List.of(Map.of("bk_host_id", 1, "bk_biz_id", 7)))),
                new Variant("target_hosts[].bk_inst_id", with(inside, "target_hosts", List.of(Map.of("bk_host_id", 1, "bk_obj_id", "module",
                        "bk_inst_id", 71)))));
    }

    Response call(Operation op, String path, String token, Object body) {
        return switch (op.method()) {
            case "get" -> fleet.server.get(path, token);
            case "post" -> fleet.server.post(path, token, body);
            case "put" -> fleet.server.put(path, token, body);
            case "delete" -> fleet.server.delete(path, token);
            default -> throw new IllegalStateException(op.method());
        };
    }

    /** What a refused request must leave as it was. */
    String state() {
        StringBuilder out = new StringBuilder();
        for (String path : List.of("/api/v1/inventory/export", "/api/v1/subscriptions", "/api/v1/keys", "/api/v1/tokens", "/api/v1/plans",
                "/api/v1/diagnoses", "/api/v1/diagnosis/operations", "/api/v1/diagnosis/operation-sets", "/api/v1/diagnosis/triggers",
                "/api/v1/enrollment-tokens", "/api/v1/packages", "/api/v1/addons", "/api/v1/registries", "/api/v1/agent-installs/host-keys",
                "/api/v1/businesses/2/secrets", "/api/v1/businesses/7/secrets")) {
            // A token's last use is bookkeeping, not a change a refused request could make.
            out.append(path).append(' ').append(fleet.server.get(path, admin).text().replaceAll(",\"last_used_at\":\"[^\"]*\"", ""))
                    .append('\n');
        }
        return out.toString();
    }
}

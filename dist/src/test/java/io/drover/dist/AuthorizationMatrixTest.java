package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the OpenAPI document × role × inside/outside business, against a real server with two real agents:
 * one business ("inside", 2) the scoped tokens cover, one ("outside", 7) they do not, each with a set, a module, a
 * host with its agent, a service instance, an enrollment token, a job and a subscription with a task.
 * <ul>
 *     <li>a token whose role is below the route's gets 403;</li>
 *     <li>on an {@code all_businesses} route, a token limited to businesses gets 403 (admin tokens, which every
 *     such route needs, always cover every business);</li>
 *     <li>on a {@code business} route, a scoped token gets 403 or 404 for every object of the outside business, and
 *     lists hold nothing of it; reading the inside objects is allowed;</li>
 *     <li>none of the refused requests changes anything.</li>
 * </ul>
 * A route whose path has no fixture here fails the test: a new route needs its rule checked.
 */
class AuthorizationMatrixTest {
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
    /** What no answer to a scoped token may contain: names, ids and addresses of the outside business. */
    static final List<String> OUTSIDE_MARKERS = List.of("out-", "outside", "10.9.7.1", "\"bk_biz_id\":7,", "\"bk_biz_id\":7}");
    static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    @TempDir
    static Path roots;
    static Fleet fleet;
    static String admin;
    static Map<String, String> scoped = new LinkedHashMap<>();
    static Map<String, String> unscoped = new LinkedHashMap<>();
    static Map<String, String[]> ids = new LinkedHashMap<>();

    @BeforeAll
    static void fleetWithTwoBusinesses() throws Exception {
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
        assertThat(fleet.drover("plugin", "upload", "../examples/registry/bkmonitorbeat").exit()).isZero();
        String version = fleet.server.get("/api/v1/packages", admin).body().get(0).path("version").asText();
        String subIn = subscription(2, 1);
        String subOut = subscription(7, 7001);
        String taskIn = lastTask(subIn);
        String taskOut = lastTask(subOut);

        // Admin tokens cover every business by construction (a scoped one is refused at creation).
        for (String role : List.of("viewer", "operator")) {
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
        ids.put("/service-instances/{id}", new String[] {"100", "700"});
        ids.put("/subscriptions/{id}", new String[] {subIn, subOut});
        ids.put("/tasks/{id}", new String[] {taskIn, taskOut});
        ids.put("/hosts/{id}", new String[] {"1", "7001"});
        ids.put("/agents/{id}", new String[] {"in-1", "out-1"});
        ids.put("/keys/{id}", new String[] {"in-1", "out-1"});
        ids.put("/enrollment-tokens/{id}", new String[] {enroll[0], enroll[1]});
        ids.put("/tokens/{id}", new String[] {someToken, someToken});
        ids.put("/addons/{name}", new String[] {"bkmonitorbeat", "bkmonitorbeat"});
        ids.put("/registries/{name}", new String[] {"nope", "nope"});
        ids.put("/packages/{name}/{version}", new String[] {"bkmonitorbeat/" + version, "bkmonitorbeat/" + version});
    }

    @AfterAll
    static void stop() {
        fleet.close();
    }

    static String token(String name, String role, List<Integer> biz) {
        Response r = fleet.server.post("/api/v1/tokens", admin, Map.of("name", name, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    static String job(String agent) {
        Response r = fleet.server.post("/api/v1/jobs", admin, Map.of("tgt", agent, "tgt_type", "list", "fun", "test.ping"));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        String jid = r.body().path("jid").asText();
        await().atMost(Duration.ofSeconds(10)).until(() -> fleet.server.get("/api/v1/jobs/" + jid, admin).body().path("returns").size() == 1);
        return jid;
    }

    static Map<String, Object> subscriptionSpec(long biz, long host) {
        return Map.of("name", "sub-" + biz, "scope", Map.of("bk_biz_id", biz, "object_type", "HOST", "node_type", "INSTANCE",
                        "nodes", List.of(Map.of("bk_host_id", host))),
                "steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                        "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf"))))));
    }

    static String subscription(long biz, long host) {
        Response r = fleet.server.post("/api/v1/subscriptions", admin, subscriptionSpec(biz, host));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("subscription").path("id").asText();
    }

    static String lastTask(String subscription) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode tasks = fleet.server.get("/api/v1/subscriptions/" + subscription + "/tasks", admin).body();
            return tasks.size() > 0 && !List.of("PENDING", "RUNNING").contains(tasks.get(0).path("status").asText());
        });
        return fleet.server.get("/api/v1/subscriptions/" + subscription + "/tasks", admin).body().get(0).path("id").asText();
    }

    record Operation(String method, String path, String role, String scope) {
        String label() {
            return method.toUpperCase(java.util.Locale.ROOT) + " " + path + " (" + role + ", " + scope + ")";
        }
    }

    static List<Operation> operations() {
        JsonNode paths = fleet.server.get("/api/v1/openapi.json", null).body().path("paths");
        List<Operation> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            path.getValue().fields().forEachRemaining(op -> out.add(new Operation(op.getKey(), path.getKey(),
                    op.getValue().path("x-drover-role").asText(null), op.getValue().path("x-drover-scope").asText("none"))));
        }
        return out;
    }

    /** The path with every parameter filled for the inside (0) or outside (1) business; fails on a route without fixture. */
    static String fill(String template, int side) {
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
    static Object outsideBody(Operation op, String path) {
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
            case "post /jobs" -> Map.of("tgt", "*", "fun", "cmd.run", "arg", List.of("id"));
            case "post /subscriptions", "post /subscriptions/{id}/plan", "put /subscriptions/{id}" -> subscriptionSpec(7, 7001);
            case "post /enrollment-tokens" -> Map.of("name", "x", "bk_biz_id", 7);
            case "post /tokens" -> Map.of("name", "x", "role", "admin", "bk_biz_ids", List.of());
            case "post /registries" -> Map.of("name", "x", "type", "local", "url", "/tmp");
            case "post /addons", "post /addons/{name}/upgrade" -> Map.of("addon", "bkmonitorbeat");
            default -> op.method().equals("put") ? fleet.server.get(path, admin).body() : Map.of();
        };
    }

    static Response call(Operation op, String path, String token, Object body) {
        return switch (op.method()) {
            case "get" -> fleet.server.get(path, token);
            case "post" -> fleet.server.post(path, token, body);
            case "put" -> fleet.server.put(path, token, body);
            case "delete" -> fleet.server.delete(path, token);
            default -> throw new IllegalStateException(op.method());
        };
    }

    /** What a refused request must leave as it was. */
    static String state() {
        StringBuilder out = new StringBuilder();
        for (String path : List.of("/api/v1/inventory/export", "/api/v1/subscriptions", "/api/v1/keys", "/api/v1/tokens",
                "/api/v1/enrollment-tokens", "/api/v1/packages", "/api/v1/addons", "/api/v1/registries")) {
            // A token's last use is bookkeeping, not a change a refused request could make.
            out.append(path).append(' ').append(fleet.server.get(path, admin).text().replaceAll(",\"last_used_at\":\"[^\"]*\"", ""))
                    .append('\n');
        }
        return out.toString();
    }

    @Test
    void everyRouteHoldsItsRoleAndScopeRule() throws Exception {
        List<Operation> operations = operations();
        assertThat(operations).as("routes in the OpenAPI document").hasSizeGreaterThan(70);
        List<String> roles = List.of("viewer", "operator", "admin");
        String before = state();
        List<String> failures = new ArrayList<>();
        for (Operation op : operations) {
            if (op.role() == null) {
                assertThat(op.scope()).as(op.label()).isEqualTo("none");
                continue;
            }
            assertThat(op.scope()).as(op.label()).isIn("business", "shared", "all_businesses");
            String outside = fill(op.path(), 1);
            Object body = outsideBody(op, outside);
            // A role below the route's is refused, whatever the business.
            for (String lower : roles.subList(0, roles.indexOf(op.role()))) {
                expect(failures, op, "role " + lower, call(op, outside, unscoped.get(lower), body), 403);
                expect(failures, op, "scoped role " + lower, call(op, outside, scoped.get(lower), body), 403);
            }
            if (op.role().equals("admin")) {
                continue;
            }
            String mine = scoped.get(op.role());
            switch (op.scope()) {
                case "all_businesses" -> expect(failures, op, "scoped " + op.role(), call(op, outside, mine, body), 403);
                case "shared" -> {
                    Response r = call(op, outside, mine, body);
                    if (r.status() == 403 || r.status() >= 500) {
                        failures.add(op.label() + ": a scoped token may read shared objects, got " + r.status() + " " + r.text());
                    }
                }
                case "business" -> business(failures, op, outside, mine, body);
                default -> failures.add(op.label() + ": unknown scope " + op.scope());
            }
        }
        assertThat(failures).isEmpty();
        assertThat(state()).as("refused requests changed nothing").isEqualTo(before);
    }

    static void business(List<String> failures, Operation op, String outside, String token, Object body) throws Exception {
        if (op.path().endsWith("/events")) {
            outsideEventsHidden(failures, op, token);
            return;
        }
        boolean hasIds = PATH_PARAM.matcher(op.path()).find();
        if (hasIds || !op.method().equals("get")) {
            expect(failures, op, "scoped " + op.role() + " on the outside business", call(op, outside, token, body), 403, 404);
        } else {
            for (String query : List.of("", "?bk_biz_id=7")) {
                Response r = call(op, outside + query, token, body);
                if (r.status() == 403 && !query.isEmpty()) {
                    continue;
                }
                if (r.status() != 200 || OUTSIDE_MARKERS.stream().anyMatch(r.text()::contains)) {
                    failures.add(op.label() + query + ": a scoped list must hold nothing of the outside business, got "
                            + r.status() + " " + abbreviated(r.text()));
                }
            }
        }
        if (op.method().equals("get")) {
            Response inside = call(op, fill(op.path(), 0), token, body);
            if (inside.status() == 403 || inside.status() >= 500) {
                failures.add(op.label() + ": the inside business must be readable, got " + inside.status() + " " + abbreviated(inside.text()));
            }
        }
    }

    /** The event stream, replayed from the start: a scoped token sees no event of the outside business. */
    static void outsideEventsHidden(List<String> failures, Operation op, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(fleet.server.url() + "/api/v1/events?since=0"))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").build();
        HttpResponse<java.io.InputStream> r = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder seen = new StringBuilder();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(r.body()))) {
            String line;
            while ((line = lines.readLine()) != null && !line.startsWith(": subscribed")) {
                seen.append(line).append('\n');
            }
        }
        if (r.statusCode() != 200 || OUTSIDE_MARKERS.stream().anyMatch(seen.toString()::contains)) {
            failures.add(op.label() + ": the replay shows the outside business: " + abbreviated(seen.toString()));
        }
        if (!seen.toString().contains("in-")) {
            failures.add(op.label() + ": the replay shows nothing of the inside business");
        }
    }

    static void expect(List<String> failures, Operation op, String who, Response r, int... allowed) {
        for (int status : allowed) {
            if (r.status() == status) {
                if (!r.contentType().startsWith("application/problem+json")) {
                    failures.add(op.label() + ", " + who + ": " + status + " without a problem document");
                }
                return;
            }
        }
        failures.add(op.label() + ", " + who + ": expected " + java.util.Arrays.toString(allowed) + ", got " + r.status()
                + " " + abbreviated(r.text()));
    }

    static String abbreviated(String text) {
        return text == null ? "" : text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }

    @Test
    void aJobWhoseTargetReachesOutsideIsRefusedNamingHowMany() {
        Response r = fleet.server.post("/api/v1/jobs", scoped.get("operator"), Map.of("tgt", "*", "fun", "cmd.run", "arg", List.of("id")));
        assertThat(r.status()).as(r.text()).isEqualTo(403);
        assertThat(r.body().path("detail").asText()).contains("1 of the 2 agents the target names are outside them (first: out-1)");
        Response inside = fleet.server.post("/api/v1/jobs", scoped.get("operator"), Map.of("tgt", "in-*", "fun", "test.ping"));
        assertThat(inside.status()).as(inside.text()).isEqualTo(201);
        assertThat(inside.body().path("minions").toString()).isEqualTo("[\"in-1\"]");
    }

    @Test
    void theSecurityGuideListsEveryRouteWithItsRoleAndScope() throws Exception {
        StringBuilder table = new StringBuilder("| method and path | role | scope |\n|---|---|---|\n");
        operations().stream().sorted(java.util.Comparator.comparing(Operation::path).thenComparing(Operation::method))
                .forEach(op -> table.append("| `").append(op.method().toUpperCase(java.util.Locale.ROOT)).append(' ')
                        .append(op.path()).append("` | ").append(op.role() == null ? "none" : op.role()).append(" | ")
                        .append(op.scope()).append(" |\n"));
        String guide = Files.readString(Path.of("..", "docs", "security.md"));
        assertThat(guide).as("docs/security.md must hold this table:\n" + table).contains(table);
    }
}

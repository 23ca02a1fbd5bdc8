package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Generated bad input to every route of the OpenAPI document, with the admin token: to routes that take a JSON body,
 * bodies of the wrong shape, with content after them, nested 10,000 deep, announced as 300 MB (more than any JSON route takes), and for every field of the route's body schema a NUL, an
 * unpaired surrogate, a 900 KB text and a number with a fraction; path parameters that are empty, overflowing,
 * negative, percent-encoded NUL, accented or 5,000 characters long. Every answer is a 4xx problem document (never a
 * 5xx, never a success), and at the end nothing has changed.
 */
class BadInputTest extends WithTwoBusinesses {
    Response send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(world.fleet.server.url() + path))
                .header("Authorization", "Bearer " + world.admin).header("Content-Type", "application/json");
        b.method(method.toUpperCase(java.util.Locale.ROOT), body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        // A client of its own for each request: the server may close a connection after refusing a request, and a
        // pooled client would then fail the next request sent on it.
        HttpResponse<String> r;
        try (HttpClient http = HttpClient.newHttpClient()) {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
        return new Response(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), null, r.body(), r.headers());
    }

    /** The bad bodies for a route: generic ones, then one per field of its body schema and kind of bad value. */
    List<String> badBodies(TwoBusinesses.Operation op, JsonNode schemas) {
        List<String> bodies = new ArrayList<>(List.of("{} xyz", "\"a string\"", "[1, 2]", "12", "{\"a\": " + "[".repeat(10_000)
                + "]".repeat(10_000) + "}", "{\"unknown_field\": 1}", "{", "\u0000"));
        if (op.bodySchema() == null) {
            return bodies;
        }
        JsonNode properties = schemas.path(op.bodySchema().replace("#/components/schemas/", "")).path("properties");
        String huge = "x".repeat(900_000); // under the 1 MB body limit: the field's own limit must refuse it
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            String type = field.getValue().path("type").asText();
            if (type.equals("integer")) {
                bodies.add("{\"" + name + "\": 1.5}");
                bodies.add("{\"" + name + "\": \"12x\"}");
                bodies.add("{\"" + name + "\": 99999999999999999999999}");
            } else {
                bodies.add("{\"" + name + "\": \"a\\u0000b\"}");
                bodies.add("{\"" + name + "\": \"half \\ud800 pair\"}");
                bodies.add("{\"" + name + "\": \"" + huge + "\"}");
                bodies.add("{\"" + name + "\": {\"deep\": " + "{\"a\": ".repeat(200) + "1" + "}".repeat(200) + "}}");
            }
        }
        return bodies;
    }

    static final List<String> BAD_IDS = List.of("%00", "99999999999999999999999", "-1", "%C3%A9t%C3%A9", "x".repeat(5_000), "%20");

    @Test
    void everyRouteAnswersBadInputWithAProblemAndChangesNothing() throws Exception {
        JsonNode schemas = world.fleet.server.get("/api/v1/openapi.json", null).body().path("components").path("schemas");
        String before = world.state();
        Map<String, String> failures = new LinkedHashMap<>();
        int sent = 0;
        for (TwoBusinesses.Operation op : world.operations()) {
            if (op.role() == null || op.path().endsWith("/events")) {
                continue;
            }
            String path = world.fill(op.path(), 0);
            if (op.bodySchema() != null) {
                for (String body : badBodies(op, schemas)) {
                    try {
                        check(failures, op.label() + " body " + abbreviated(body), send(op.method(), path, body));
                    } catch (java.io.IOException e) {
                        failures.put(op.label() + " body " + abbreviated(body), "no answer: " + e.getMessage());
                    }
                    sent++;
                }
                check(failures, op.label() + " 300 MB body", announcingHugeBody(op.method(), path));
                sent++;
            }
            if (op.path().contains("{")) {
                for (String bad : BAD_IDS) {
                    String hostile = op.path().replaceAll("\\{[^}]+}", bad);
                    try {
                        Response r = send(op.method(), hostile, op.method().equals("get") || op.method().equals("delete") ? null : "{}");
                        check(failures, op.label() + " path " + abbreviated(hostile), r);
                    } catch (java.io.IOException e) {
                        failures.put(op.label() + " path " + abbreviated(hostile), "no answer: " + e.getMessage());
                    }
                    sent++;
                }
            }
        }
        assertThat(sent).as("bad requests sent").isGreaterThan(500);
        assertThat(failures).isEmpty();
        assertThat(world.state()).as("bad input changed nothing").isEqualTo(before);
        assertThat(world.fleet.server.get("/healthz", null).status()).isEqualTo(200);
    }

    /**
     * A request whose headers announce a 300 MB JSON body, of which nothing is sent: the server must refuse it from
     * its Content-Length (a server that read first could be made to buffer any amount).
     */
    Response announcingHugeBody(String method, String path) throws Exception {
        URI url = URI.create(world.fleet.server.url());
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(10_000);
            String head = method.toUpperCase(java.util.Locale.ROOT) + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + world.admin + "\r\nContent-Type: application/json\r\nContent-Length: " + (300L << 20) + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            String response = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            int status = Integer.parseInt(response.substring(9, 12));
            String contentType = response.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:"))
                    .findFirst().map(l -> l.substring(13).strip()).orElse("");
            return new Response(status, contentType, null, response.substring(response.indexOf("\r\n\r\n") + 4), null);
        } catch (java.net.SocketTimeoutException e) {
            return new Response(0, "", null, "no answer within 10 s: the server waits for the announced body", null);
        }
    }

    static void check(Map<String, String> failures, String what, Response r) {
        if (r.status() < 400 || r.status() >= 500 || !r.contentType().startsWith("application/problem+json")) {
            failures.put(what, r.status() + " " + r.contentType() + " " + abbreviated(r.text()));
        }
    }

    static String abbreviated(String text) {
        return text == null ? "" : text.length() > 120 ? text.substring(0, 120) + "… (" + text.length() + " chars)" : text;
    }

    @Test
    void aRunOnUnknownInstancesIsRefusedListingThem() {
        String sub = world.ids.get("/subscriptions/{id}")[0];
        for (String action : List.of("run", "retry")) {
            Response r = world.fleet.server.post("/api/v1/subscriptions/" + sub + "/" + action, world.admin,
                    Map.of("instance_ids", List.of("host|instance|host|999", "nope")));
            assertThat(r.status()).as(r.text()).isEqualTo(422);
            assertThat(r.body().path("errors").get(0).path("field").asText()).isEqualTo("instance_ids");
            assertThat(r.body().path("detail").asText()).contains("2 unknown to subscription " + sub).contains("nope")
                    .contains("host|instance|host|999");
        }
    }

    @Test
    void aSubscriptionNotRunAtCreationSaysHowToRunIt() {
        Map<String, Object> spec = new LinkedHashMap<>(world.subscriptionSpec(2, 1));
        spec.put("name", "later");
        spec.put("run_immediately", false);
        Response created = world.fleet.server.post("/api/v1/subscriptions", world.admin, spec);
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        assertThat(created.body().path("task_id").isMissingNode() || created.body().path("task_id").isNull()).isTrue();
        assertThat(created.body().path("note").asText()).startsWith("not run (run_immediately is false)");
        String id = created.body().path("subscription").path("id").asText();
        assertThat(world.fleet.server.delete("/api/v1/subscriptions/" + id + "?keep_plugins=true", world.admin).status()).isEqualTo(204);
    }

    @Test
    void brokenTemplatesInAStepContextAreRefusedAtCreation() {
        Map<String, Object> spec = new LinkedHashMap<>(world.subscriptionSpec(2, 1));
        spec.put("name", "broken-context");
        spec.put("run_immediately", false);
        spec.put("steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf"))),
                "params", Map.of("context", Map.of("fine", "{{ cmdb_instance.host.bk_host_innerip }}",
                        "nested", Map.of("broken", "{% if x %}never closed"))))));
        Response r = world.fleet.server.post("/api/v1/subscriptions", world.admin, spec);
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.body().path("errors").get(0).path("field").asText()).isEqualTo("steps.beat.params.context.nested.broken");
        assertThat(r.body().path("errors")).hasSize(1);
    }

    @Test
    void aStepContextNamingAnUnknownVariableIsRefusedAtCreationAndTheKnownOnesAreTaken() {
        Map<String, Object> spec = new LinkedHashMap<>(world.subscriptionSpec(2, 1));
        spec.put("name", "unknown-in-context");
        spec.put("run_immediately", false);
        spec.put("steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf"))),
                "params", Map.of("context", Map.of("fine", "{{ target.host.bk_host_innerip }}:{{ control_info.port }}",
                        "nested", Map.of("bad", List.of("{{ step_data }}", "{{ no_such_var }}")))))));
        Response r = world.fleet.server.post("/api/v1/subscriptions", world.admin, spec);
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.body().path("errors")).hasSize(1);
        assertThat(r.body().path("errors").get(0).path("field").asText()).isEqualTo("steps.beat.params.context.nested.bad[1]");
        assertThat(r.body().path("errors").get(0).path("message").asText()).contains("no_such_var");

        spec.put("steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf"))),
                "params", Map.of("context", Map.of("fine", "{{ cmdb_instance.host.bk_host_innerip }}:{{ control_info.port }}",
                        "earlier", "{{ step_data }}")))));
        Response created = world.fleet.server.post("/api/v1/subscriptions", world.admin, spec);
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        String id = created.body().path("subscription").path("id").asText();
        assertThat(world.fleet.server.delete("/api/v1/subscriptions/" + id + "?keep_plugins=true", world.admin).status()).isEqualTo(204);
    }
}

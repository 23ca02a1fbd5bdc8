package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
class AuthorizationMatrixTest extends WithTwoBusinesses {
    @Test
    void everyRouteHoldsItsRoleAndScopeRule() throws Exception {
        List<TwoBusinesses.Operation> operations = world.operations();
        assertThat(operations).as("routes in the OpenAPI document").hasSizeGreaterThan(70);
        List<String> roles = List.of("viewer", "operator", "admin");
        String before = world.state();
        List<String> failures = new ArrayList<>();
        for (TwoBusinesses.Operation op : operations) {
            if (op.role() == null) {
                assertThat(op.scope()).as(op.label()).isEqualTo("none");
                continue;
            }
            assertThat(op.scope()).as(op.label()).isIn("business", "shared", "all_businesses");
            String outside = world.fill(op.path(), 1);
            Object body = world.outsideBody(op, outside);
            // A role below the route's is refused, whatever the business; an alerts token may only post alerts.
            List<String> refused = new ArrayList<>(op.role().equals("alerts") ? List.of("viewer")
                    : roles.subList(0, roles.indexOf(op.role())));
            if (!op.role().equals("alerts")) {
                refused.add("alerts");
            }
            for (String lower : refused) {
                expect(failures, op, "role " + lower, world.call(op, outside, world.unscoped.get(lower), body), 403);
                expect(failures, op, "scoped role " + lower, world.call(op, outside, world.scoped.get(lower), body), 403);
            }
            if (op.role().equals("admin")) {
                continue;
            }
            String mine = world.scoped.get(op.role());
            switch (op.scope()) {
                case "all_businesses" -> expect(failures, op, "scoped " + op.role(), world.call(op, outside, mine, body), 403);
                case "shared" -> {
                    Response r = world.call(op, outside, mine, body);
                    if (r.status() == 403 || r.status() >= 500) {
                        failures.add(op.label() + ": a scoped token may read shared objects, got " + r.status() + " " + r.text());
                    }
                }
                case "business" -> business(failures, op, outside, mine, body);
                default -> failures.add(op.label() + ": unknown scope " + op.scope());
            }
        }
        assertThat(failures).isEmpty();
        assertThat(world.state()).as("refused requests changed nothing").isEqualTo(before);
    }

    /**
     * Every route of business scope below admin that takes a body, sent to the inside objects of its path with a body
     * naming an outside object in one field at a time: 403 for a scoped token, and nothing changes. The business-
     * bearing fields of each body are read from its schema in the OpenAPI document; a route without bodies here, or
     * a field without one, fails the test.
     */
    @Test
    void everyBusinessBearingFieldOfABodyNamingAnOutsideObjectIsRefused() throws Exception {
        String before = world.state();
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (TwoBusinesses.Operation op : world.operations()) {
            if (op.bodySchema() == null || !op.scope().equals("business") || op.role() == null || op.role().equals("admin")) {
                continue;
            }
            List<TwoBusinesses.Variant> variants = world.outsideFieldBodies(op);
            if (variants == null) {
                failures.add(op.label() + ": takes a body (" + op.bodySchema() + ") but TwoBusinesses.outsideFieldBodies has no"
                        + " out-of-business bodies for it");
                continue;
            }
            java.util.Set<String> covered = new java.util.HashSet<>();
            variants.forEach(v -> covered.add(v.field()));
            List<String> uncovered = world.businessFields(op.bodySchema()).stream().filter(f -> !covered.contains(f)).toList();
            if (!uncovered.isEmpty()) {
                failures.add(op.label() + ": no out-of-business body for the field(s) " + uncovered);
            }
            String inside = world.fill(op.path(), 0);
            for (TwoBusinesses.Variant v : variants) {
                Response r = world.call(op, inside, world.scoped.get(op.role()), v.body());
                String who = "scoped " + op.role() + ", " + v.field() + " outside";
                if (op.path().contains("/subscriptions")) {
                    expect(failures, op, who, r, 403);
                    String named = v.field().contains("[]") ? v.field().substring(0, v.field().indexOf("[]")) + "[0]" : v.field();
                    if (r.status() == 403 && !r.body().path("errors").toString().contains("\"" + named)) {
                        failures.add(op.label() + ", " + who + ": the refusal does not name the field: " + abbreviated(r.text()));
                    }
                } else {
                    // Inventory bodies are refused before or by the business check: an id of another business given
                    // for a new object is taken (409), a body that contradicts its path is malformed (422).
                    expect(failures, op, who, r, 403, 409, 422);
                }
                // the answer may repeat what the body said (an agent id, an address), nothing more of the outside
                // business (its name as a value: the word is also English, "outside them")
                String said = io.drover.model.Json.json().writeValueAsString(v.body());
                if (TwoBusinesses.OUTSIDE_MARKERS.stream().map(m -> m.equals("outside") ? "\"outside\"" : m).filter(m -> !said.contains(m))
                        .anyMatch(r.text()::contains)) {
                    failures.add(op.label() + ", " + who + ": the answer shows the outside business: " + abbreviated(r.text()));
                }
                // nor an id of its objects that the body did not name (its business, set, module, host or instance)
                for (long id : TwoBusinesses.OUTSIDE_IDS) {
                    // the id as a number of its own: not part of a longer one, nor of an address such as 10.9.7.1
                    java.util.regex.Pattern word = java.util.regex.Pattern.compile("(?<![0-9]|[0-9]\\.)" + id + "(?![0-9]|\\.[0-9])");
                    if (!word.matcher(said).find() && word.matcher(r.text()).find()) {
                        failures.add(op.label() + ", " + who + ": the answer names the outside object " + id + ": " + abbreviated(r.text()));
                    }
                }
                sent++;
            }
        }
        assertThat(failures).isEmpty();
        assertThat(sent).as("bodies sent").isGreaterThan(30);
        assertThat(world.state()).as("refused requests changed nothing").isEqualTo(before);
    }

    /**
     * What the body matrix does not reach (a rename, a business that does not exist): a scoped token gets the same
     * answer for another business's object as for a missing one, and no id of the other business. (Admin routes take
     * no scoped token: an admin token covers every business by construction.)
     */
    @Test
    void aScopedTokensRefusalsAreTheSameForAnotherBusinesssObjectAndAMissingOne() {
        var server = world.fleet.server;
        String operator = world.scoped.get("operator");
        assertThat(operator).as("the scoped operator's token").isNotNull();
        String before = world.state();
        record Probe(Response outside, String outsideId, Response missing, String missingId) {
        }
        Map<String, Object> set7 = Map.of("sets", List.of(Map.of("bk_set_id", 12, "bk_biz_id", 7, "bk_set_name", "x")));
        Map<String, Object> set9999 = Map.of("sets", List.of(Map.of("bk_set_id", 12, "bk_biz_id", 9999, "bk_set_name", "x")));
        List<Probe> probes = List.of(
                // moving a host, or importing a set or a business, into a business that exists and one that does not
                new Probe(server.post("/api/v1/hosts/1/move", operator, Map.of("bk_biz_id", 7)), "7",
                        server.post("/api/v1/hosts/1/move", operator, Map.of("bk_biz_id", 9999)), "9999"),
                new Probe(server.post("/api/v1/inventory/import", operator, set7), "7",
                        server.post("/api/v1/inventory/import", operator, set9999), "9999"),
                new Probe(server.post("/api/v1/inventory/import", operator,
                        Map.of("businesses", List.of(Map.of("bk_biz_id", 7, "bk_biz_name", "x")))), "7",
                        server.post("/api/v1/inventory/import", operator,
                        Map.of("businesses", List.of(Map.of("bk_biz_id", 9999, "bk_biz_name", "x")))), "9999"));
        for (Probe probe : probes) {
            assertThat(probe.outside().status()).as(probe.outside().text()).isEqualTo(403).isEqualTo(probe.missing().status());
            assertThat(probe.outside().text().replace(probe.outsideId(), "N"))
                    .isEqualTo(probe.missing().text().replace(probe.missingId(), "N"));
        }
        // renaming a business to another business's name: the name is taken, by no business it names
        Response renamed = server.put("/api/v1/businesses/2", operator, Map.of("bk_biz_id", 2, "bk_biz_name", "outside"));
        assertThat(renamed.status()).isEqualTo(409);
        assertThat(renamed.text()).contains("already another business's").doesNotContainPattern("\\b7\\b");
        assertThat(world.state()).as("refused requests changed nothing").isEqualTo(before);
    }

    static void business(List<String> failures, TwoBusinesses.Operation op, String outside, String token, Object body) throws Exception {
        if (op.path().endsWith("/events")) {
            outsideEventsHidden(failures, op, token);
            return;
        }
        if (op.path().endsWith("/alerts")) {
            // The webhook takes a batch of many hosts' alerts: those outside the token's businesses start nothing and are listed.
            Response r = world.call(op, outside, token, body);
            // (another business's host is as missing to a scoped token: "is not a host")
            if (r.status() != 200 || r.body().path("started").size() != 0
                    || !r.body().path("skipped").path(0).path("reason").asText().contains("is not a host")) {
                failures.add(op.label() + ": an alert for an outside host must start nothing and say why, got " + r.status() + " "
                        + abbreviated(r.text()));
            }
            return;
        }
        if (op.method().equals("post") && (op.path().endsWith("/jobs") || op.path().endsWith("/plans") || op.path().endsWith("/diagnoses"))) {
            // a scoped token's target sees no agent or host of another business: naming one names none, as an unknown
            // id does
            expect(failures, op, "scoped " + op.role() + " targeting the outside business", world.call(op, outside, token, body), 422);
            return;
        }
        boolean hasIds = TwoBusinesses.PATH_PARAM.matcher(op.path()).find();
        if (hasIds || !op.method().equals("get")) {
            // a body naming another business's set or module is answered as one naming a missing one (422)
            boolean namesASetOrModule = op.path().endsWith("/modules") || op.path().endsWith("/service-instances")
                    || op.path().endsWith("/inventory/import");
            int[] allowed = !hasIds && namesASetOrModule ? new int[] {403, 404, 422} : new int[] {403, 404};
            expect(failures, op, "scoped " + op.role() + " on the outside business", world.call(op, outside, token, body), allowed);
        } else {
            for (String query : List.of("", "?bk_biz_id=7")) {
                Response r = world.call(op, outside + query, token, body);
                if (r.status() == 403 && !query.isEmpty()) {
                    continue;
                }
                if (r.status() != 200 || TwoBusinesses.OUTSIDE_MARKERS.stream().anyMatch(r.text()::contains)) {
                    failures.add(op.label() + query + ": a scoped list must hold nothing of the outside business, got "
                            + r.status() + " " + abbreviated(r.text()));
                }
            }
        }
        if (op.method().equals("get")) {
            Response inside = world.call(op, world.fill(op.path(), 0), token, body);
            if (inside.status() == 403 || inside.status() >= 500) {
                failures.add(op.label() + ": the inside business must be readable, got " + inside.status() + " " + abbreviated(inside.text()));
            }
        }
    }

    /** The event stream, replayed from the start: a scoped token sees no event of the outside business. */
    static void outsideEventsHidden(List<String> failures, TwoBusinesses.Operation op, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(world.fleet.server.url() + "/api/v1/events?since=0"))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").build();
        HttpResponse<java.io.InputStream> r = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        StringBuilder seen = new StringBuilder();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(r.body()))) {
            String line;
            while ((line = lines.readLine()) != null && !line.startsWith(": subscribed")) {
                seen.append(line).append('\n');
            }
        }
        if (r.statusCode() != 200 || TwoBusinesses.OUTSIDE_MARKERS.stream().anyMatch(seen.toString()::contains)) {
            failures.add(op.label() + ": the replay shows the outside business: " + abbreviated(seen.toString()));
        }
        if (!seen.toString().contains("in-")) {
            failures.add(op.label() + ": the replay shows nothing of the inside business");
        }
    }

    static void expect(List<String> failures, TwoBusinesses.Operation op, String who, Response r, int... allowed) {
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
    void aScopedTokensTargetMatchesOnlyItsBusinessesAgentsAndTellsNothingOfTheOthers() {
        // another business's agents are invisible to a scoped token's targets: its id, its grains, its address
        // answer exactly as an agent that does not exist, so a target cannot be used to probe them
        String operator = world.scoped.get("operator");
        List<String> answers = new ArrayList<>();
        for (Map<String, Object> probe : List.of(Map.<String, Object>of("tgt", "out-1", "tgt_type", "list"),
                Map.<String, Object>of("tgt", "out-*"), Map.<String, Object>of("tgt", "G@drover_innerip:10.9.7.1", "tgt_type", "compound"),
                Map.<String, Object>of("tgt", "S@10.9.7.0/24", "tgt_type", "compound"))) {
            Map<String, Object> body = new java.util.HashMap<>(probe);
            body.put("fun", "test.ping");
            Response r = world.fleet.server.post("/api/v1/jobs", operator, body);
            assertThat(r.status()).as(r.text()).isEqualTo(422);
            answers.add(r.body().path("errors").toString().replace(probe.get("tgt").toString(), "T"));
        }
        Response missing = world.fleet.server.post("/api/v1/jobs", operator, Map.of("tgt", "nobody-1", "tgt_type", "list", "fun", "test.ping"));
        assertThat(answers).as("the same answer as for an agent that does not exist")
                .containsOnly(missing.body().path("errors").toString().replace("nobody-1", "T"));
        Response everyone = world.fleet.server.post("/api/v1/jobs", operator, Map.of("tgt", "*", "fun", "test.ping"));
        assertThat(everyone.status()).as(everyone.text()).isEqualTo(201);
        assertThat(everyone.body().path("minions").toString()).isEqualTo("[\"in-1\"]");
        Response inside = world.fleet.server.post("/api/v1/jobs", world.scoped.get("operator"), Map.of("tgt", "in-*", "fun", "test.ping"));
        assertThat(inside.status()).as(inside.text()).isEqualTo(201);
        assertThat(inside.body().path("minions").toString()).isEqualTo("[\"in-1\"]");
    }

    /** Read or written by id, another business's object answers a scoped token as a missing one does. */
    @Test
    void toAScopedTokenAnotherBusinesssObjectAndAMissingOneAnswerAlike() {
        String[][] pairs = {{"/hosts/{id}", "7001", "7999"}, {"/sets/{id}", "70", "79"}, {"/modules/{id}", "71", "79"},
                {"/service-instances/{id}", "700", "799"}, {"/subscriptions/{id}", world.fill("/subscriptions/{id}", 1)
                .replaceAll("\\D", ""), "99999"}, {"/tasks/{id}", world.fill("/tasks/{id}", 1).replaceAll("\\D", ""), "99999"}};
        for (String token : List.of(world.scoped.get("viewer"), world.scoped.get("operator"))) {
            for (String[] pair : pairs) {
                Response foreign = world.fleet.server.get("/api/v1" + pair[0].replace("{id}", pair[1]), token);
                Response missing = world.fleet.server.get("/api/v1" + pair[0].replace("{id}", pair[2]), token);
                assertThat(foreign.status()).as(pair[0] + " " + foreign.text()).isEqualTo(missing.status()).isEqualTo(404);
                assertThat(foreign.body().path("detail").asText().replace(" " + pair[1], " N"))
                        .isEqualTo(missing.body().path("detail").asText().replace(" " + pair[2], " N"));
                assertThat(foreign.body().path("code").asText()).isEqualTo(missing.body().path("code").asText());
            }
            Response moved = world.fleet.server.post("/api/v1/hosts/7001/move", token, Map.of("bk_module_ids", List.of(20)));
            Response movedMissing = world.fleet.server.post("/api/v1/hosts/7999/move", token, Map.of("bk_module_ids", List.of(20)));
            assertThat(moved.status()).as(moved.text()).isEqualTo(movedMissing.status());
        }
    }

    @Test
    void theSecurityGuideListsEveryRouteWithItsRoleAndScope() throws Exception {
        StringBuilder table = new StringBuilder("| method and path | role | scope |\n|---|---|---|\n");
        world.operations().stream().sorted(java.util.Comparator.comparing(TwoBusinesses.Operation::path).thenComparing(TwoBusinesses.Operation::method))
                .forEach(op -> table.append("| `").append(op.method().toUpperCase(java.util.Locale.ROOT)).append(' ')
                        .append(op.path()).append("` | ").append(op.role() == null ? "none" : op.role()).append(" | ")
                        .append(op.scope()).append(" |\n"));
        String guide = Files.readString(Path.of("..", "docs", "security.md"));
        assertThat(guide).as("docs/security.md must hold this table:\n" + table).contains(table);
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer.Response;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A subscription cannot reach another business through any field of its body (docs/api.md, "Subscriptions and
 * businesses"), against a real server with an agent in each of two businesses: business 2, which the scoped tokens
 * cover (module 20, host 1 and its agent in-1, service 100), and business 7, which they do not (set 70, module 71,
 * host 7001 at 10.9.7.1 and its agent out-1, service 700).
 */
class SubscriptionBusinessWallTest extends WithTwoBusinesses {
    static final String SUBSCRIPTIONS = "/api/v1/subscriptions";

    static Map<String, Object> spec(String objectType, String nodeType, List<Map<String, Object>> nodes,
                                    List<Map<String, Object>> targets) {
        Map<String, Object> spec = new LinkedHashMap<>(Map.of("name", "wall", "scope", Map.of("bk_biz_id", 2, "object_type", objectType,
                        "node_type", nodeType, "nodes", nodes),
                "steps", List.of(Map.of("id", "beat", "type", "PLUGIN", "config", Map.of("plugin_name", "bkmonitorbeat",
                        "config_templates", List.of(Map.of("name", "bkmonitorbeat_script.conf")))))));
        if (targets != null) {
            spec.put("target_hosts", targets);
        }
        return spec;
    }

    static Map<String, Object> hostSpec(List<Map<String, Object>> nodes) {
        return spec("HOST", "INSTANCE", nodes, null);
    }

    /** The subscriptions and their tasks: a refused body changes neither (and so sends no agent anything). */
    String untouched() {
        JsonNode subscriptions = world.fleet.server.get(SUBSCRIPTIONS, world.admin).body();
        StringBuilder out = new StringBuilder(subscriptions.toString());
        for (JsonNode s : subscriptions) {
            out.append(world.fleet.server.get(SUBSCRIPTIONS + "/" + s.path("id").asText() + "/tasks", world.admin).text());
        }
        return out.toString();
    }

    /**
     * 403 problem+json naming {@code field}, and nothing of the outside business in the answer (but the address a
     * body gave, which the answer repeats as the caller wrote it).
     */
    static void forbidden(Response r, String field) {
        assertThat(r.status()).as(r.text()).isEqualTo(403);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.body().path("errors").findValuesAsText("field")).as(r.text()).contains(field);
        assertThat(TwoBusinesses.OUTSIDE_MARKERS).as(r.text()).noneMatch(r.text().replace("host 10.9.7.1 (cloud 0)", "")::contains);
    }

    @Test
    void topoNodesOfAnotherBusinessAreRefusedToAScopedOperator() {
        String before = untouched();
        String operator = world.scoped.get("operator");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", "module",
                "bk_inst_id", 71, "bk_biz_id", 7)), null)), "scope.nodes[0].bk_biz_id");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", "module",
                "bk_inst_id", 20), Map.of("bk_obj_id", "module", "bk_inst_id", 71)), null)), "scope.nodes[1]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", "set",
                "bk_inst_id", 70)), null)), "scope.nodes[0]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", "biz",
                "bk_inst_id", 7)), null)), "scope.nodes[0]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("SERVICE", "TOPO", List.of(Map.of("bk_obj_id", "module",
                "bk_inst_id", 71)), null)), "scope.nodes[0]");
        assertThat(untouched()).isEqualTo(before);
    }

    @Test
    void instanceNodesNamingAnotherBusinesssHostOrServiceAreRefused() {
        String before = untouched();
        String operator = world.scoped.get("operator");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, hostSpec(List.of(Map.of("bk_host_id", 7001, "bk_biz_id", 7)))),
                "scope.nodes[0]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, hostSpec(List.of(Map.of("bk_host_id", 1),
                Map.of("ip", "10.9.7.1", "bk_cloud_id", 0, "bk_biz_id", 7)))), "scope.nodes[1]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("SERVICE", "INSTANCE", List.of(Map.of("id", 700)), null)),
                "scope.nodes[0]");
        Map<String, Object> selecting = new LinkedHashMap<>(hostSpec(List.of(Map.of("bk_host_id", 1))));
        selecting.put("scope", Map.of("bk_biz_id", 2, "object_type", "HOST", "node_type", "INSTANCE", "nodes",
                List.of(Map.of("bk_host_id", 1)), "instance_selector", Map.of("host.bk_host_id", List.of(1, 7001))));
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, selecting),
                "scope.instance_selector.host.bk_host_id[1]");
        assertThat(untouched()).isEqualTo(before);
    }

    @Test
    void targetHostsOfAnotherBusinessAreRefusedByIdAndByAddress() {
        String before = untouched();
        String operator = world.scoped.get("operator");
        List<Map<String, Object>> inside = List.of(Map.of("bk_host_id", 1));
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "INSTANCE", inside, List.of(Map.of("bk_host_id", 7001)))),
                "target_hosts[0]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS, operator, spec("HOST", "INSTANCE", inside, List.of(Map.of("bk_host_id", 1),
                Map.of("ip", "10.9.7.1", "bk_cloud_id", 0)))), "target_hosts[1]");
        assertThat(untouched()).isEqualTo(before);
    }

    @Test
    void anUpdateThatMovesTheNodesToAnotherBusinessIsRefused() {
        String id = world.ids.get("/subscriptions/{id}")[0];
        String stored = world.fleet.server.get(SUBSCRIPTIONS + "/" + id, world.admin).text();
        String before = untouched();
        Map<String, Object> moved = new LinkedHashMap<>(world.subscriptionSpec(2, 1));
        moved.put("scope", Map.of("bk_biz_id", 2, "object_type", "HOST", "node_type", "INSTANCE", "nodes",
                List.of(Map.of("bk_host_id", 7001, "bk_biz_id", 7))));
        forbidden(world.fleet.server.put(SUBSCRIPTIONS + "/" + id, world.scoped.get("operator"), moved), "scope.nodes[0]");
        moved.put("scope", Map.of("bk_biz_id", 2, "object_type", "HOST", "node_type", "TOPO", "nodes",
                List.of(Map.of("bk_obj_id", "module", "bk_inst_id", 71))));
        forbidden(world.fleet.server.put(SUBSCRIPTIONS + "/" + id, world.scoped.get("operator"), moved), "scope.nodes[0]");
        assertThat(world.fleet.server.get(SUBSCRIPTIONS + "/" + id, world.admin).text()).isEqualTo(stored);
        assertThat(untouched()).isEqualTo(before);
    }

    @Test
    void aPreviewBodyCannotListAnotherBusinesssHosts() {
        String id = world.ids.get("/subscriptions/{id}")[0];
        String viewer = world.scoped.get("viewer");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS + "/" + id + "/plan", viewer, hostSpec(List.of(Map.of("bk_host_id", 7001,
                "bk_biz_id", 7)))), "scope.nodes[0]");
        forbidden(world.fleet.server.post(SUBSCRIPTIONS + "/" + id + "/plan", viewer, spec("HOST", "TOPO", List.of(Map.of("bk_obj_id",
                "module", "bk_inst_id", 71, "bk_biz_id", 7)), null)), "scope.nodes[0].bk_biz_id");
        Response inside = world.fleet.server.post(SUBSCRIPTIONS + "/" + id + "/plan", viewer, hostSpec(List.of(Map.of("bk_host_id", 1))));
        assertThat(inside.status()).as(inside.text()).isEqualTo(200);
    }

    @Test
    void toAScopedTokenAMissingObjectAndAnotherBusinesssAnswerAlike() {
        String operator = world.scoped.get("operator");
        for (String[] pair : new String[][] {{"bk_host_id", "7001", "7999"}, {"bk_obj_id:module", "71", "79"},
                {"bk_obj_id:set", "70", "79"}, {"id", "700", "799"}}) {
            Response foreign = world.fleet.server.post(SUBSCRIPTIONS, operator, node(pair[0], Long.parseLong(pair[1])));
            Response missing = world.fleet.server.post(SUBSCRIPTIONS, operator, node(pair[0], Long.parseLong(pair[2])));
            assertThat(missing.status()).as(missing.text()).isEqualTo(foreign.status()).isEqualTo(403);
            assertThat(missing.text().replace(pair[2], "N")).isEqualTo(foreign.text().replace(pair[1], "N"));
        }
    }

    static Map<String, Object> node(String kind, long id) {
        return switch (kind) {
            case "bk_host_id" -> hostSpec(List.of(Map.of("bk_host_id", id)));
            case "id" -> spec("SERVICE", "INSTANCE", List.of(Map.of("id", id)), null);
            default -> spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", kind.substring(kind.indexOf(':') + 1), "bk_inst_id", id)), null);
        };
    }

    @Test
    void anAllBusinessAdminMayNotMixBusinessesInOneSubscription() {
        for (Map<String, Object> body : List.of(hostSpec(List.of(Map.of("bk_host_id", 7001))),
                spec("HOST", "INSTANCE", List.of(Map.of("bk_host_id", 1)), List.of(Map.of("ip", "10.9.7.1", "bk_cloud_id", 0))),
                spec("HOST", "TOPO", List.of(Map.of("bk_obj_id", "module", "bk_inst_id", 20, "bk_biz_id", 7)), null))) {
            Response r = world.fleet.server.post(SUBSCRIPTIONS, world.admin, body);
            assertThat(r.status()).as(r.text()).isEqualTo(422);
            assertThat(r.body().path("errors").get(0).path("message").asText()).as(r.text())
                    .contains("the subscription's business 2 (scope.bk_biz_id)");
        }
    }

    @Test
    void aTargetHostMovedToAnotherBusinessIsPlannedAsDepartedNotFollowed() {
        // host 2 of business 2 with its own agent is the fixed target of a subscription whose node is host 1
        String admin = world.admin;
        Response created = world.fleet.server.post("/api/v1/hosts", admin, Map.of("bk_host_id", 2, "bk_biz_id", 2,
                "bk_host_innerip", "10.9.0.2", "bk_host_name", "in-host-2", "bk_module_ids", List.of(20)));
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        String enroll = world.fleet.server.post("/api/v1/enrollment-tokens", admin, Map.of("name", "in-2", "bk_biz_id", 2))
                .body().path("token").asText();
        world.fleet.agent("in-2", "10.9.0.2", enroll, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> world.fleet.server.get("/api/v1/agents/in-2", admin).body()
                .path("bk_host_id").asLong() == 2);
        // PUB/SUB drops what is sent before the subscription lands: ping until it answers
        await().atMost(Duration.ofSeconds(30)).until(() -> world.fleet.drover("run", "-L", "in-2", "test.ping", "--timeout", "3")
                .exit() == 0);
        Response sub = world.fleet.server.post(SUBSCRIPTIONS, admin, spec("HOST", "INSTANCE", List.of(Map.of("bk_host_id", 1)),
                List.of(Map.of("bk_host_id", 2))));
        assertThat(sub.status()).as(sub.text()).isEqualTo(201);
        String id = sub.body().path("subscription").path("id").asText();
        String task = world.lastTask(id);
        assertThat(world.fleet.server.get("/api/v1/tasks/" + task, admin).body().path("status").asText()).isEqualTo("SUCCESS");
        String plan = SUBSCRIPTIONS + "/" + id + "/plan";
        assertThat(world.fleet.server.get(plan, admin).body().path("instances").findValuesAsText("action")).containsOnly("NOT_CHANGE");

        // host 2 moves to business 7: its copy is kept and left alone (the other business's now), never managed there
        assertThat(world.fleet.server.post("/api/v1/hosts/2/move", admin, Map.of("bk_biz_id", 7, "bk_module_ids", List.of(71)))
                .status()).isEqualTo(200);
        JsonNode moved = world.fleet.server.get(plan, admin).body();
        assertThat(moved.path("instances").findValuesAsText("action")).as(moved.toPrettyString()).containsOnly("SKIP");
        assertThat(moved.path("instances").findValuesAsText("reason")).containsOnly("OUT_OF_BUSINESS");
        assertThat(moved.path("missing").toString()).contains("target host 2 in business 7: outside the subscription's business 2");
        Response run = world.fleet.server.post(SUBSCRIPTIONS + "/" + id + "/run", admin, Map.of());
        assertThat(run.status()).as(run.text()).isEqualTo(200);
        assertThat(run.body().path("task_id").isNumber()).as(run.text()).isFalse();
        assertThat(run.body().path("note").asText()).contains("nothing to do");
    }
}

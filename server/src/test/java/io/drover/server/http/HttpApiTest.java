package io.drover.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HTTP contract: authentication, authorization, error documents, audit, OpenAPI and the ops endpoints. */
class HttpApiTest {
    static TestServer server;
    static String admin;
    static String viewer;
    static String shopOperator;

    @BeforeAll
    static void start() {
        server = TestServer.start();
        admin = server.adminToken();
        Response demo = server.postRaw("/api/v1/inventory/import", admin, "application/yaml", """
                businesses: [{bk_biz_id: 2, bk_biz_name: shop}, {bk_biz_id: 7, bk_biz_name: other}]
                sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: web}]
                modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: nginx}]
                hosts:
                  - {bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.0.0.1, bk_module_ids: [20]}
                  - {bk_host_id: 2, bk_biz_id: 7, bk_host_innerip: 10.0.0.2}
                """);
        assertThat(demo.status()).as(demo.text()).isEqualTo(200);
        viewer = token("viewer", "viewer", List.of());
        shopOperator = token("shop-ops", "operator", List.of(2));
    }

    static String token(String name, String role, List<Integer> biz) {
        Response r = server.post("/api/v1/tokens", admin, Map.of("name", name, "role", role, "bk_biz_ids", biz));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.body().path("token").asText();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static void assertProblem(Response r, int status, String code) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        JsonNode p = r.body();
        assertThat(p.path("status").asInt()).isEqualTo(status);
        assertThat(p.path("code").asText()).isEqualTo(code);
        assertThat(p.path("type").asText()).isEqualTo("https://drover.io/problems/" + code);
        assertThat(p.path("title").asText()).isNotBlank();
        assertThat(p.path("detail").asText()).isNotBlank();
    }

    long hostCount() {
        return server.get("/api/v1/hosts", admin).body().path("total").asLong();
    }

    @Test
    void theAdminTokenFileIsOwnerOnly() throws Exception {
        var file = server.dataDir().resolve("admin.token");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file).strip()).startsWith("drv_");
    }

    @Test
    void missingMalformedUnknownAndRevokedTokensGet401() {
        assertProblem(server.get("/api/v1/hosts", null), 401, "unauthorized");
        assertProblem(server.get("/api/v1/hosts", "drv_not-a-real-token"), 401, "unauthorized");
        String doomed = token("doomed", "viewer", List.of());
        assertThat(server.get("/api/v1/hosts", doomed).status()).isEqualTo(200);
        long id = server.get("/api/v1/tokens", admin).body().findValues("name").indexOf(
                com.fasterxml.jackson.databind.node.TextNode.valueOf("doomed")) + 1L;
        assertThat(server.delete("/api/v1/tokens/" + id, admin).status()).isEqualTo(204);
        assertProblem(server.get("/api/v1/hosts", doomed), 401, "unauthorized");
    }

    @Test
    void aRoleThatIsTooLowGets403AndChangesNothing() {
        long before = hostCount();
        Response r = server.post("/api/v1/hosts", viewer, Map.of("bk_biz_id", 2, "bk_host_innerip", "10.0.0.99"));
        assertProblem(r, 403, "forbidden");
        assertThat(r.body().path("detail").asText()).contains("role viewer").contains("needs operator");
        assertProblem(server.get("/api/v1/tokens", viewer), 403, "forbidden");
        assertProblem(server.get("/api/v1/audit", shopOperator), 403, "forbidden");
        assertThat(hostCount()).isEqualTo(before);
    }

    @Test
    void aBusinessScopedTokenGets403OutsideItsBusinesses() {
        assertThat(server.get("/api/v1/hosts/1", shopOperator).status()).isEqualTo(200);
        // another business's host by id is as missing
        assertProblem(server.get("/api/v1/hosts/2", shopOperator), 404, "not_found");
        assertProblem(server.get("/api/v1/hosts?bk_biz_id=7", shopOperator), 403, "forbidden");
        assertProblem(server.post("/api/v1/hosts", shopOperator, Map.of("bk_biz_id", 7, "bk_host_innerip", "10.0.7.7")),
                403, "forbidden");
        assertProblem(server.post("/api/v1/businesses", shopOperator, Map.of("bk_biz_name", "mine")), 403, "forbidden");
        JsonNode visible = server.get("/api/v1/hosts", shopOperator).body();
        assertThat(visible.path("total").asLong()).isEqualTo(1);
        assertThat(server.get("/api/v1/businesses", shopOperator).body().findValuesAsText("bk_biz_name")).containsExactly("shop");
    }

    @Test
    void unknownIdsAndRoutesGet404() {
        assertProblem(server.get("/api/v1/hosts/424242", admin), 404, "not_found");
        assertThat(server.get("/api/v1/hosts/424242", admin).body().path("detail").asText()).isEqualTo("host 424242 does not exist");
        assertProblem(server.get("/api/v1/businesses/9999/topology", admin), 404, "not_found");
        assertProblem(server.get("/api/v1/no-such-thing", admin), 404, "not_found");
    }

    @Test
    void aWrongMethodOnAnExistingPathGets405ListingTheAllowedMethods() {
        Response r = server.delete("/api/v1/jobs/12345678901234567890", admin);
        assertProblem(r, 405, "method_not_allowed");
        assertThat(r.headers().firstValue("Allow")).hasValue("GET");
        assertThat(r.body().path("detail").asText()).contains("DELETE", "/api/v1/jobs/12345678901234567890", "GET");

        Response put = server.put("/api/v1/jobs", admin, Map.of());
        assertProblem(put, 405, "method_not_allowed");
        assertThat(put.headers().firstValue("Allow").orElseThrow()).contains("POST").doesNotContain("PUT");
    }

    @Test
    void conflictsGet409AndChangeNothing() {
        assertProblem(server.post("/api/v1/businesses", admin, Map.of("bk_biz_id", 2, "bk_biz_name", "again")), 409,
                "already_exists");
        long before = hostCount();
        Response dup = server.post("/api/v1/hosts", admin, Map.of("bk_biz_id", 2, "bk_host_innerip", "10.0.0.1"));
        assertProblem(dup, 409, "already_exists");
        assertThat(dup.body().path("detail").asText()).isEqualTo("10.0.0.1 in cloud 0 is already host 1");
        assertProblem(server.delete("/api/v1/modules/20", admin), 409, "not_empty");
        assertThat(hostCount()).isEqualTo(before);
    }

    @Test
    void validationErrorsGet422ListingEveryBadField() {
        long before = hostCount();
        Response r = server.post("/api/v1/hosts", admin, Map.of("bk_biz_id", 2, "bk_host_innerip", "300.1.1.1",
                "os_type", "plan9", "bk_cloud_id", -1));
        assertProblem(r, 422, "validation_failed");
        List<String> fields = new ArrayList<>();
        r.body().path("errors").forEach(e -> fields.add(e.path("field").asText()));
        assertThat(fields).containsExactlyInAnyOrder("bk_host_innerip", "os_type", "bk_cloud_id");

        Response unknownField = server.post("/api/v1/hosts", admin, Map.of("bk_biz_id", 2, "bk_host_ip", "10.1.1.1"));
        assertProblem(unknownField, 422, "validation_failed");
        assertThat(unknownField.body().path("errors").get(0).path("field").asText()).isEqualTo("bk_host_ip");

        Response wrongType = server.post("/api/v1/hosts", admin, "{\"bk_biz_id\": \"two\", \"bk_host_innerip\": \"10.1.1.1\"}");
        assertProblem(wrongType, 422, "validation_failed");
        assertThat(wrongType.body().path("errors").get(0).path("field").asText()).isEqualTo("bk_biz_id");

        assertProblem(server.post("/api/v1/hosts", admin, "{\"bk_biz_id\": 2,"), 400, "malformed_body");
        assertProblem(server.get("/api/v1/hosts?limit=0", admin), 422, "validation_failed");
        assertProblem(server.get("/api/v1/hosts/abc", admin), 422, "validation_failed");
        assertThat(hostCount()).isEqualTo(before);
    }

    @Test
    void aRejectedImportChangesNothingAndNamesTheRecord() {
        long before = hostCount();
        Response r = server.postRaw("/api/v1/inventory/import", admin, "application/yaml", """
                hosts:
                  - {bk_host_id: 30, bk_biz_id: 2, bk_host_innerip: 10.0.3.1}
                  - {bk_host_id: 31, bk_biz_id: 2, bk_host_innerip: 10.0.3.2, bk_module_ids: [404]}
                """);
        assertProblem(r, 422, "validation_failed");
        assertThat(r.body().path("errors").get(0).path("field").asText()).isEqualTo("hosts[1].bk_module_ids[0]");
        assertThat(hostCount()).isEqualTo(before);
    }

    @Test
    void everyMutationIsAudited() {
        server.post("/api/v1/sets", admin, Map.of("bk_biz_id", 2, "bk_set_name", "audited"));
        server.post("/api/v1/sets", viewer, Map.of("bk_biz_id", 2, "bk_set_name", "refused"));
        JsonNode entries = server.get("/api/v1/audit?limit=50", admin).body().path("items");
        List<String> lines = new ArrayList<>();
        entries.forEach(e -> lines.add(e.path("actor").asText() + " " + e.path("method").asText() + " "
                + e.path("path").asText() + " " + e.path("status").asInt()));
        assertThat(lines).contains("admin#1 POST /api/v1/sets 201", "viewer#2 POST /api/v1/sets 403");
    }

    @Test
    void theOpenApiDocumentListsExactlyTheServedRoutes() {
        Response r = server.get("/api/v1/openapi.json", null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().path("openapi").asText()).isEqualTo("3.1.0");
        Set<String> documented = new HashSet<>();
        r.body().path("paths").fields().forEachRemaining(path -> path.getValue().fieldNames()
                .forEachRemaining(method -> documented.add(method.toUpperCase() + " " + path.getKey())));
        Set<String> served = new HashSet<>(server.server().api().servedRoutes());
        assertThat(served).isNotEmpty();
        assertThat(documented).isEqualTo(served);
        assertThat(r.body().at("/components/schemas/Host/properties/bk_host_innerip/type").asText()).isEqualTo("string");
        assertThat(r.body().at("/paths/~1api~1v1~1hosts/post/x-drover-role").asText()).isEqualTo("operator");
    }

    @Test
    void healthReadinessAndMetricsNeedNoToken() {
        assertThat(server.get("/healthz", null).body().path("status").asText()).isEqualTo("ok");
        assertThat(server.get("/readyz", null).body().path("status").asText()).isEqualTo("ready");
        server.get("/api/v1/businesses", admin);
        Response metrics = server.get("/metrics", null);
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.text()).contains("jvm_memory_used_bytes").contains("drover_http_requests_seconds_count");
    }

    @Test
    void apiAnswersAreNeverCached() {
        assertThat(server.get("/api/v1/businesses", admin).headers().firstValue("Cache-Control")).contains("no-store");
        assertThat(server.get("/api/v1/businesses", "drv_wrong").headers().firstValue("Cache-Control")).as("errors too")
                .contains("no-store");
        assertThat(server.get("/api/v1/tokens", admin).headers().firstValue("Cache-Control")).contains("no-store");
    }

    @Test
    void aMetricsTokenClosesMetrics(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("metrics.token");
        java.nio.file.Files.writeString(file, "prometheus-scrape-0123456789\n");
        try (TestServer closed = TestServer.start(TestServer.newDataDir(), Map.of(io.drover.server.config.Setting.METRICS_TOKEN_FILE,
                file.toString()))) {
            assertProblem(closed.get("/metrics", null), 401, "unauthorized");
            assertProblem(closed.get("/metrics", "prometheus-scrape-012345678"), 401, "unauthorized");
            assertProblem(closed.get("/metrics", closed.adminToken()), 401, "unauthorized");
            Response ok = closed.get("/metrics", "prometheus-scrape-0123456789");
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.text()).contains("jvm_memory_used_bytes");
            assertThat(closed.get("/healthz", null).status()).as("probes stay open").isEqualTo(200);
        }
    }
}

package io.drover.server.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The secrets routes: set, listed by name, deleted; a value never comes back, in an answer, an error or the audit log. */
class SecretRoutesTest {
    static final String VALUE = "hunter2-" + java.util.UUID.randomUUID();
    static TestServer server;
    static String admin;

    @BeforeAll
    static void start() {
        server = TestServer.start();
        admin = server.adminToken();
        assertThat(server.postRaw("/api/v1/inventory/import", admin, "application/yaml",
                "businesses: [{bk_biz_id: 2, bk_biz_name: two}, {bk_biz_id: 7, bk_biz_name: seven}]").status()).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    String token(String role, List<Integer> businesses) {
        return server.post("/api/v1/tokens", admin, Map.of("name", role + businesses, "role", role, "bk_biz_ids", businesses))
                .body().path("token").asText();
    }

    @Test
    void aSecretIsSetListedAndDeletedAndItsValueNeverAnswered() {
        Response set = server.put("/api/v1/businesses/2/secrets/db.password", admin, Map.of("value", VALUE));
        assertThat(set.status()).as(set.text()).isEqualTo(200);
        assertThat(set.text()).contains("\"name\":\"db.password\"").contains("\"bk_biz_id\":2").doesNotContain(VALUE);
        assertThat(server.put("/api/v1/businesses/2/secrets/db.password", admin, Map.of("value", VALUE + "b")).status()).isEqualTo(200);
        Response list = server.get("/api/v1/businesses/2/secrets", admin);
        assertThat(list.body().findValuesAsText("name")).containsExactly("db.password");
        assertThat(list.text()).doesNotContain(VALUE);
        assertThat(server.get("/api/v1/businesses/7/secrets", admin).body()).isEmpty();
        assertThat(server.delete("/api/v1/businesses/2/secrets/db.password", admin).status()).isEqualTo(204);
        assertThat(server.delete("/api/v1/businesses/2/secrets/db.password", admin).status()).isEqualTo(404);
    }

    @Test
    void onlyAnOperatorOfTheBusinessSetsOne() {
        assertThat(server.put("/api/v1/businesses/2/secrets/x", token("viewer", List.of()), Map.of("value", VALUE)).status()).isEqualTo(403);
        String operatorOf7 = token("operator", List.of(7));
        assertThat(server.put("/api/v1/businesses/2/secrets/x", operatorOf7, Map.of("value", VALUE)).status()).isEqualTo(403);
        assertThat(server.get("/api/v1/businesses/2/secrets", operatorOf7).status()).isEqualTo(403);
        assertThat(server.put("/api/v1/businesses/7/secrets/x", operatorOf7, Map.of("value", VALUE)).status()).isEqualTo(200);
        assertThat(server.delete("/api/v1/businesses/7/secrets/x", operatorOf7).status()).isEqualTo(204);
    }

    @Test
    void aBadRequestNeverQuotesTheValueNotInItsAnswerNorInTheAuditLog() {
        List<Response> refused = List.of(
                server.put("/api/v1/businesses/2/secrets/x", admin, VALUE),                         // not JSON: a bare token
                server.put("/api/v1/businesses/2/secrets/x", admin, "{\"value\": \"" + VALUE + "\""),  // cut short
                server.put("/api/v1/businesses/2/secrets/x", admin, Map.of("value", Map.of("v", VALUE))),
                server.put("/api/v1/businesses/2/secrets/x", admin, Map.of("value", VALUE + "\u0000")),
                server.put("/api/v1/businesses/2/secrets/x", admin, Map.of("value", VALUE, VALUE, 1)),
                server.put("/api/v1/businesses/2/secrets/..", admin, Map.of("value", VALUE)),
                server.put("/api/v1/businesses/2/secrets/x", admin, Map.of("value", "")),
                server.put("/api/v1/businesses/2/secrets/x", admin, Map.of("value", "x".repeat(65_537))));
        for (Response r : refused) {
            assertThat(r.status()).as(r.text()).isBetween(400, 422);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.text()).doesNotContain(VALUE);
        }
        assertThat(server.get("/api/v1/audit?limit=100", admin).text()).contains("/secrets/").doesNotContain(VALUE);
        assertThat(server.get("/api/v1/businesses/2/secrets", admin).body().findValuesAsText("name")).doesNotContain("x", "..");
    }
}

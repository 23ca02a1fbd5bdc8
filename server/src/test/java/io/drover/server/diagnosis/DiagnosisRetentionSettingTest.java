package io.drover.server.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The retention settings of a real server reach its diagnosis pruning: with {@code diagnosis-retention-per-host: 1},
 * the pass keeps the newest ended diagnosis of the host and the running one, over the HTTP API.
 */
class DiagnosisRetentionSettingTest {
    @Test
    void theServersSettingDecidesHowManyEndedDiagnosesAHostKeeps() {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.DIAGNOSIS_RETENTION_PER_HOST, "1",
                Setting.DIAGNOSIS_RETRY_SECONDS, "3600"))) {
            String admin = server.adminToken();
            assertThat(server.postRaw("/api/v1/inventory/import", admin, "application/yaml", """
                    businesses: [{bk_biz_id: 2, bk_biz_name: shop}]
                    hosts: [{bk_host_id: 1, bk_biz_id: 2, bk_host_innerip: 10.9.0.1, bk_host_name: web-1}]
                    """).status()).isEqualTo(200);
            // web-1 has no agent: its diagnoses wait (an hour between tries) until they are cancelled
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                TestServer.Response r = server.post("/api/v1/diagnoses", admin, Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d" + i),
                        "spec", Map.of("operationSet", "host-overview", "nodeName", "web-1")));
                assertThat(r.status()).as(r.text()).isEqualTo(201);
                ids.add(r.body().path("diagnoses").get(0).path("id").asLong());
            }
            for (long id : ids.subList(0, 3)) {
                assertThat(server.post("/api/v1/diagnoses/" + id + "/cancel", admin, Map.of()).status()).isEqualTo(200);
            }

            assertThat(server.server().diagnosis().prune()).isEqualTo(2);

            assertThat(server.get("/api/v1/diagnoses/" + ids.get(0), admin).status()).isEqualTo(404);
            assertThat(server.get("/api/v1/diagnoses/" + ids.get(1), admin).status()).isEqualTo(404);
            assertThat(server.get("/api/v1/diagnoses/" + ids.get(2), admin).body().path("phase").asText()).isEqualTo("Cancelled");
            assertThat(server.get("/api/v1/diagnoses/" + ids.get(3), admin).body().path("phase").asText()).isEqualTo("Running");
            assertThat(server.server().diagnosis().prune()).isZero();
        }
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.Json;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An export of a real fleet imports back: 100,000 hosts (about 19 MB of JSON) in one request and one transaction,
 * exported and imported again unchanged; a bad record anywhere imports nothing.
 */
class LargeImportTest {
    static final int HOSTS = Integer.getInteger("drover.import.hosts", 100_000);

    static Map<String, Object> fleet(int hosts, int badAt) {
        List<Map<String, Object>> list = new ArrayList<>(hosts);
        for (int i = 1; i <= hosts; i++) {
            Map<String, Object> host = new LinkedHashMap<>();
            host.put("bk_host_id", i);
            host.put("bk_biz_id", 5);
            host.put("bk_host_innerip", i == badAt ? "300.1.1.1" : "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255));
            host.put("bk_host_name", "h" + i);
            host.put("os_type", "linux");
            host.put("bk_module_ids", List.of(51));
            host.put("attributes", Map.of("rack", "r" + (i % 40)));
            list.add(host);
        }
        return Map.of("businesses", List.of(Map.of("bk_biz_id", 5, "bk_biz_name", "big")),
                "sets", List.of(Map.of("bk_set_id", 50, "bk_biz_id", 5, "bk_set_name", "all")),
                "modules", List.of(Map.of("bk_module_id", 51, "bk_set_id", 50, "bk_module_name", "m")),
                "hosts", list);
    }

    long hostCount(TestServer server) {
        return server.get("/api/v1/hosts?limit=1", server.adminToken()).body().path("total").asLong();
    }

    @Test
    void aHundredThousandHostsImportExportAndImportBackUnchanged() throws Exception {
        try (TestServer server = TestServer.start()) {
            String admin = server.adminToken();
            long before = hostCount(server);
            String bad = Json.json().writeValueAsString(fleet(HOSTS, HOSTS / 2));
            Response refused = server.postRaw("/api/v1/inventory/import", admin, "application/json", bad);
            assertThat(refused.status()).as(refused.text()).isEqualTo(422);
            assertThat(refused.text()).contains("hosts[" + (HOSTS / 2 - 1) + "].bk_host_innerip");
            assertThat(hostCount(server)).as("a bad record imports nothing").isEqualTo(before);

            String document = Json.json().writeValueAsString(fleet(HOSTS, -1));
            assertThat(document.length()).isGreaterThan(HOSTS * 100);
            Response imported = server.postRaw("/api/v1/inventory/import", admin, "application/json", document);
            assertThat(imported.status()).as(imported.text()).isEqualTo(200);
            assertThat(imported.body().path("created").asInt()).isGreaterThanOrEqualTo(HOSTS);
            assertThat(hostCount(server)).isEqualTo(before + HOSTS);

            Response exported = server.get("/api/v1/inventory/export", admin);
            assertThat(exported.status()).isEqualTo(200);
            assertThat(exported.body().path("hosts").size()).isEqualTo((int) (before + HOSTS));
            Response again = server.postRaw("/api/v1/inventory/import", admin, "application/json", exported.text());
            assertThat(again.status()).as(again.text()).isEqualTo(200);
            assertThat(again.body().path("created").asInt()).isZero();
            assertThat(again.body().path("updated").asInt()).isZero();
            assertThat(hostCount(server)).isEqualTo(before + HOSTS);
        }
    }
}

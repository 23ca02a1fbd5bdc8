package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.Json;
import io.drover.server.testing.TestServer;
import io.drover.server.testing.TestServer.Response;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @TempDir
    Path dir;

    @Test
    void anErrorAfterProgressWasReportedIsTheLastLineAndImportsNothing() throws Exception {
        try (TestServer server = TestServer.start()) {
            String admin = server.adminToken();
            assertThat(server.postRaw("/api/v1/inventory/import", admin, "application/json", Json.json().writeValueAsString(
                    Map.of("businesses", List.of(Map.of("bk_biz_id", 6, "bk_biz_name", "other")),
                            "sets", List.of(Map.of("bk_set_id", 60, "bk_biz_id", 6, "bk_set_name", "s")),
                            "modules", List.of(Map.of("bk_module_id", 61, "bk_set_id", 60, "bk_module_name", "m"))))).status())
                    .isEqualTo(200);
            assertThat(server.postRaw("/api/v1/inventory/import", admin, "application/json",
                    Json.json().writeValueAsString(fleet(1, -1))).status()).isEqualTo(200);
            Response token = server.post("/api/v1/tokens", admin, Map.of("name", "biz5", "role", "operator", "bk_biz_ids", List.of(5)));
            String operator = token.body().path("token").asText();
            long before = hostCount(server);

            Map<String, Object> doc = fleet(2_500, -1);
            @SuppressWarnings("unchecked") Map<String, Object> outside = (Map<String, Object>) ((List<?>) doc.get("hosts")).get(2_000);
            outside.put("bk_biz_id", 6);
            outside.put("bk_module_ids", List.of(61));
            Map<String, Object> scoped = new LinkedHashMap<>(doc);
            scoped.remove("businesses"); // business 5 exists; a token limited to it may not write the business list
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(server.url() + "/api/v1/inventory/import"))
                    .header("Authorization", "Bearer " + operator).header("Content-Type", "application/json")
                    .header("Accept", "application/x-ndjson")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(scoped))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/x-ndjson"));
            List<String> lines = response.body().lines().toList();
            assertThat(Json.json().readTree(lines.getFirst()).path("progress"))
                    .isEqualTo(Json.json().readTree("{\"written\":1000,\"total\":2502}"));
            assertThat(lines.getLast()).startsWith("{\"error\":").contains("\"status\":403").contains("business 6");
            assertThat(hostCount(server)).as("nothing of the refused import is kept").isEqualTo(before);
            assertThat(server.get("/api/v1/audit?limit=1", admin).body().toString()).contains("403");

            // without Accept: application/x-ndjson the same import is one problem document
            Response plain = server.postRaw("/api/v1/inventory/import", operator, "application/json",
                    Json.json().writeValueAsString(scoped));
            assertThat(plain.status()).isEqualTo(403);
            assertThat(plain.contentType()).startsWith("application/problem+json");
        }
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
            Path file = dir.resolve("fleet.json");
            Files.writeString(file, document);
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = io.drover.cli.DroverCommand.commandLine().setOut(new PrintWriter(out, true))
                    .setErr(new PrintWriter(err, true))
                    .execute("inventory", "import", file.toString(), "--server", server.url(), "--token", admin);
            assertThat(exit).as(out + "" + err).isZero();
            assertThat(err.toString()).as("the CLI shows progress").contains("in one transaction")
                    .contains("records written (50%)")
                    .contains(String.format("%,d of %,d records written (100%%)", HOSTS + 3, HOSTS + 3));
            assertThat(out.toString()).containsPattern("imported .* in [0-9.]+ s: [0-9]+ created, 0 updated");
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

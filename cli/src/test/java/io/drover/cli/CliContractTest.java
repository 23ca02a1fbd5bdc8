package io.drover.cli;

import static io.drover.cli.EnrollInstallCommandTest.drover;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.EnrollInstallCommandTest.Run;
import io.drover.model.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI against a stand-in API answering canned model records: what it sends (request records in snake_case), how it
 * prints answers (table, JSON, YAML), and how it reports the server's problem documents. No Drover server runs.
 */
class CliContractTest {
    static final String HOST_PAGE = """
            {"items": [{"bk_host_id": 11, "bk_biz_id": 2, "bk_host_innerip": "10.0.0.11", "bk_cloud_id": 0,
                        "bk_host_name": "web-1", "os_type": "linux", "bk_module_ids": [5, 6], "attributes": {"rack": "r1"},
                        "field_of_a_newer_server": {"x": 1}}],
             "total": 40, "offset": 0, "limit": 1, "also_new": true}
            """;

    final CannedApi api = new CannedApi();

    @AfterEach
    void stop() {
        api.close();
    }

    Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--server", api.url(), "--token", "drv_test"));
        return drover(all.toArray(String[]::new));
    }

    @Test
    void aTableShowsTheRecordsFieldsAndAnswersWithFieldsThisClientDoesNotKnowAreRead() {
        api.json("GET", "/api/v1/hosts", HOST_PAGE);

        Run run = cli("host", "list", "--biz", "2", "--limit", "1");

        assertThat(run.exit()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(0)).matches("ID +IP +CLOUD +NAME +BIZ +MODULES +OS +ATTRIBUTES");
        assertThat(lines.get(1)).matches("11 +10\\.0\\.0\\.11 +0 +web-1 +2 +5,6 +linux +rack=r1");
        assertThat(lines.get(2)).isEqualTo("1 of 40 host(s)");
        assertThat(api.requests()).extracting(CannedApi.Request::uri).containsExactly("/api/v1/hosts?bk_biz_id=2&limit=1");
    }

    @Test
    void jsonAndYamlPrintTheAnswerAsTheModelRecordWritesIt() throws Exception {
        api.json("GET", "/api/v1/hosts", HOST_PAGE);

        Run json = cli("host", "list", "-o", "json");
        Run yaml = cli("host", "list", "--output", "yaml");

        assertThat(json.exit()).as(json.err()).isZero();
        JsonNode printed = Json.json().readTree(json.out());
        assertThat(printed.path("total").asLong()).isEqualTo(40);
        assertThat(printed.path("items").get(0).path("bk_host_innerip").asText()).isEqualTo("10.0.0.11");
        assertThat(printed.path("items").get(0).path("bk_module_ids")).hasSize(2);
        assertThat(json.out()).doesNotContain("1 of 40").doesNotContain("bkHostId");
        assertThat(yaml.exit()).as(yaml.err()).isZero();
        assertThat(Json.yaml().readTree(yaml.out())).isEqualTo(printed);
        assertThat(yaml.out()).startsWith("items:");
    }

    @Test
    void aProblemDocumentBecomesTheErrorMessageWithEachBadFieldAndExitCodeOne() {
        api.answer("POST", "/api/v1/tokens", 422, "application/problem+json", """
                {"type": "about:blank", "title": "Unprocessable", "status": 422, "code": "invalid",
                 "detail": "the request is invalid", "errors": [{"field": "name", "message": "must not be blank"},
                 {"field": "bk_biz_ids[0]", "message": "no such business"}]}
                """);

        Run run = cli("token", "create", " ", "--role", "viewer", "--biz", "9");

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("error: the request is invalid [422 invalid]" + System.lineSeparator()
                + "  name: must not be blank" + System.lineSeparator()
                + "  bk_biz_ids[0]: no such business" + System.lineSeparator());
        assertThat(run.out()).isEmpty();
    }

    @Test
    void anErrorThatIsNotAProblemDocumentIsShownAsTheServerSentIt() {
        api.answer("GET", "/api/v1/hosts/5", 502, "text/html", "<html>bad gateway</html>");

        Run run = cli("host", "show", "5");

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).startsWith("error: HTTP 502: <html>bad gateway</html>");
    }

    @Test
    void anAnswerThatDoesNotFitTheRecordIsAClearErrorNotAHalfPrintedTable() {
        api.json("GET", "/api/v1/hosts/5", "{\"bk_host_id\": \"not a number\"}");

        Run run = cli("host", "show", "5");

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).startsWith("error: the server's answer does not fit Host (is the server a compatible version?)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void tokenCreateSendsATokenRequestInSnakeCaseAndPrintsTheSecretOnce() throws Exception {
        api.answer("POST", "/api/v1/tokens", 201, "application/json", """
                {"info": {"id": 7, "name": "ci", "role": "viewer", "bk_biz_ids": [2], "created_at": "2026-11-28T00:00:00Z",
                          "expires_at": "2026-11-28T05:00:00Z"},
                 "token": "drv_secret"}
                """);

        Run run = cli("token", "create", "ci", "--role", "VIEWER", "--biz", "2", "--ttl-hours", "5");

        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode sent = Json.json().readTree(api.requests().get(0).body());
        assertThat(sent).isEqualTo(Json.json().readTree(
                "{\"name\": \"ci\", \"role\": \"viewer\", \"bk_biz_ids\": [2], \"ttl_hours\": 5}"));
        assertThat(run.out()).isEqualTo("token 7 'ci' (VIEWER) created, expires 2026-11-28T05:00:00Z. Its secret, shown only now:"
                + System.lineSeparator() + "drv_secret" + System.lineSeparator());
    }

    @Test
    void anUnknownRoleIsRefusedBeforeAnyRequest() {
        Run run = cli("token", "create", "ci", "--role", "root");

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).contains("--role: unknown role 'root'");
        assertThat(api.requests()).isEmpty();
    }

    @Test
    void runSendsAJobRequestWithTheTargetTypeAndKeywordArgumentsAndExitsOneWhenAnAgentFailed() throws Exception {
        api.json("POST", "/api/v1/jobs", "{\"jid\": \"J1\", \"minions\": [\"a\", \"b\"], \"missing\": []}");
        api.json("GET", "/api/v1/jobs/J1", """
                {"jid": "J1", "fun": "cmd.run", "minions": ["a", "b"], "missing": [],
                 "returns": {"a": {"ret": "hello", "retcode": 0, "success": true},
                             "b": {"ret": {"code": 3, "lines": ["x"]}, "retcode": 3, "success": false}}}
                """);

        Run run = cli("run", "-L", "a,b", "cmd.run", "echo hello", "cwd=/tmp", "--timeout", "5");

        assertThat(run.exit()).isEqualTo(1);
        JsonNode sent = Json.json().readTree(api.requests().get(0).body());
        assertThat(sent).isEqualTo(Json.json().readTree("""
                {"tgt": "a,b", "tgt_type": "list", "fun": "cmd.run", "arg": ["echo hello"], "kwarg": {"cwd": "/tmp"},
                 "timeout": 5}
                """));
        assertThat(run.out()).isEqualTo(String.join(System.lineSeparator(), "a:", "    hello", "b:", "    code: 3",
                "    lines:", "    - x", ""));
    }

    @Test
    void runWithJsonOutputPrintsOneObjectPerAgent() {
        api.json("POST", "/api/v1/jobs", "{\"jid\": \"J2\", \"minions\": [\"a\"], \"missing\": []}");
        api.json("GET", "/api/v1/jobs/J2", """
                {"jid": "J2", "returns": {"a": {"ret": true, "retcode": 0, "success": true}}, "missing": []}
                """);

        Run run = cli("run", "a", "test.ping", "-o", "json");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("{\"a\": true}" + System.lineSeparator());
    }

    @Test
    void jobGetFollowsTheCursorPageByPageAndCountsTheStates() {
        api.json("GET", "/api/v1/jobs/J3/returns", """
                {"jid": "J3", "agents": [{"id": "a", "state": "RETURNED", "ret": {"ret": "ok", "retcode": 0, "success": true}},
                                         {"id": "b", "state": "TIMED_OUT"}], "next": null}
                """);

        Run run = cli("job", "get", "J3", "--page-size", "2");

        assertThat(run.exit()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(1)).matches("a +returned +0 +ok");
        assertThat(lines.get(2)).matches("b +timed_out *");
        assertThat(lines.get(3)).isEqualTo("job J3: 2 agent(s): returned=1 timed_out=1");
        assertThat(api.requests()).extracting(CannedApi.Request::uri).containsExactly("/api/v1/jobs/J3/returns?limit=2");
    }

    @Test
    void optionsOutOfRangeAreRefusedWithoutARequest() {
        Run pageSize = cli("job", "get", "J3", "--page-size", "0");
        Run move = cli("host", "move", "5");
        Run format = cli("host", "list", "-o", "xml");

        assertThat(pageSize.exit()).isEqualTo(1);
        assertThat(pageSize.err()).contains("--page-size must be 1 to 5000");
        assertThat(move.exit()).isEqualTo(1);
        assertThat(move.err()).contains("give --module (one or more) or --biz");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).contains("xml");
        assertThat(api.requests()).isEmpty();
    }

    @Test
    void hostMoveSendsAHostMoveWithoutTheBusinessWhenOnlyModulesAreGiven() throws Exception {
        api.json("POST", "/api/v1/hosts/11/move", """
                {"bk_host_id": 11, "bk_biz_id": 2, "bk_host_innerip": "10.0.0.11", "bk_module_ids": [7]}
                """);

        Run run = cli("host", "move", "11", "--module", "7");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(Json.json().readTree(api.requests().get(0).body())).isEqualTo(Json.json().readTree("{\"bk_module_ids\": [7]}"));
        assertThat(run.out().lines().toList().get(1)).matches("11 +10\\.0\\.0\\.11 +- +- +2 +7 +- +-");
    }

    @Test
    void inventoryImportReadsTheProgressLinesAndTheResult() {
        api.answer("POST", "/api/v1/inventory/import", 200, "application/x-ndjson", """
                {"progress": {"written": 5, "total": 10}}
                {"progress": {"written": 10, "total": 10}}
                {"result": {"created": 7, "updated": 2, "unchanged": 1}}
                """);

        Run run = cli("inventory", "import", writeInventory());

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.err()).contains("5 of 10 records written (50%)");
        assertThat(run.out()).matches("imported .* in [0-9.]+ s: 7 created, 2 updated, 1 unchanged\\R");
    }

    @Test
    void anImportThatFailsAfterItsFirstProgressLineReportsTheProblem() {
        api.answer("POST", "/api/v1/inventory/import", 200, "application/x-ndjson", """
                {"progress": {"written": 5, "total": 10}}
                {"error": {"status": 409, "code": "conflict", "detail": "host 10.0.0.1 is in two businesses"}}
                """);

        Run run = cli("inventory", "import", writeInventory());

        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).contains("error: host 10.0.0.1 is in two businesses [409 conflict]");
    }

    private static String writeInventory() {
        try {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("inventory", ".yaml");
            file.toFile().deleteOnExit();
            java.nio.file.Files.writeString(file, "businesses: []\n");
            return file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

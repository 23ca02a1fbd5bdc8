package io.drover.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The console's REST types are the model records': {@code ui/src/api-types.ts} is what {@link ApiTypes} writes from the
 * OpenAPI document of the routes served now. A renamed or retyped field in a record fails this test (and then, once
 * regenerated, the console's type check) instead of breaking the console silently.
 */
class ApiTypesTest {
    static final Path CHECKED_IN = Path.of("..", "ui", "src", "api-types.ts");

    @Test
    void theCheckedInConsoleTypesAreTheOnesTheRecordsGiveNow() throws Exception {
        String generated;
        try (TestServer server = TestServer.start()) {
            JsonNode document = Json.json().valueToTree(OpenApiDocument.build(server.server().api().routes(), "test"));
            generated = ApiTypes.typescript(document);
        }
        if (Boolean.getBoolean("drover.api-types.write")) {
            Files.writeString(CHECKED_IN, generated);
        }
        assertThat(Files.exists(CHECKED_IN)).as(CHECKED_IN.toAbsolutePath() + " is missing").isTrue();
        assertThat(Files.readString(CHECKED_IN))
                .as("ui/src/api-types.ts differs from what the model records give now; regenerate it with "
                        + "./mvnw -pl server -am verify -Dtest=ApiTypesTest -Ddrover.api-types.write=true "
                        + "(then npm run build in ui/)")
                .isEqualTo(generated);
    }

    @Test
    void schemasSayWhichFieldsAreAlwaysThereAndSpellEnumsAsOnTheWire() throws Exception {
        try (TestServer server = TestServer.start()) {
            JsonNode document = Json.json().valueToTree(OpenApiDocument.build(server.server().api().routes(), "test"));
            JsonNode schemas = document.path("components").path("schemas");
            String ts = ApiTypes.typescript(document);

            assertThat(schemas.at("/AgentInfo/required").toString()).contains("\"online\"").doesNotContain("\"id\"");
            assertThat(ts).contains("export interface AgentInfo {\n  id?: string;\n  key_state?: 'accepted' | 'pending' | 'rejected' | 'denied';");
            assertThat(ts).as("RunStatus in its wire words").contains("'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED'");
            assertThat(ts).contains("  online: boolean;\n");
            assertThat(ts).contains("reason?: 'other_business' | 'host_has_agent';");
            assertThat(ts).contains("export interface DiagnosisInfoSummary {").contains("export interface DiagnosisObjectSummary {");
            assertThat(ts).contains("  apiVersion?: string;");
            assertThat(ts).contains("max_failure_ratio?: number;");
        }
    }
}

package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.drover.core.testing.ReferenceData;
import io.drover.model.plans.PlanJson;
import io.drover.model.Json;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seed's vCurrent → vNext conversion, to the exact document, over the reference plans. */
class VCurrentConverterTest {
    @Test
    void askDnsIpConvertsToTheExactDocument() throws Exception {
        Map<?, ?> plan = Json.json().readValue(ReferenceData.dir("murano").resolve("v1-askdnsip.plan.json").toFile(), Map.class);
        Map<String, Object> converted = VCurrentConverter.toVNext(plan, "9b8a7c6d5e4f30211203a4b5c6d7e8f9");
        JsonNode expected;
        try (InputStream in = getClass().getResourceAsStream("v1-askdnsip.converted.json")) {
            expected = Json.json().readTree(in);
        }
        JsonNode actual = Json.json().valueToTree(converted);
        assertThat(actual.equals(expected)).as(actual.toPrettyString()).isTrue();
    }

    @Test
    void aCommandGivenTwiceKeepsEachCallsArguments() {
        Map<String, Object> plan = Map.of("Scripts", List.of(), "Commands", List.of(
                Map.of("Name", "Set", "Arguments", Map.of("Value", 1)),
                Map.of("Name", "Set", "Arguments", Map.of("Value", 2)),
                Map.of("Name", "Set_Value", "Arguments", Map.of("x", 3)),
                Map.of("Name", "Set", "Arguments", Map.of("Value_x", 4))));
        Map<String, Object> converted = VCurrentConverter.toVNext(plan, "m1");

        assertThat(converted.get("Parameters")).isEqualTo(Map.of("Set_Value", 1, "Set_Value#2", 2, "Set_Value_x", 3,
                "Set_Value_x#2", 4));
        assertThat(String.valueOf(converted.get("Body"))).contains(
                "ps.Set(Value=args['Set_Value'])", "ps.Set(Value=args['Set_Value#2'])",
                "ps.Set_Value(x=args['Set_Value_x'])", "ps.Set(Value_x=args['Set_Value_x#2'])");
    }

    @Test
    void theSamplePlanKeepsCommandOrderArgumentsAndNames() throws Exception {
        // The reference sample has a byte order mark and trailing commas, as the Windows agent's JSON reader allowed.
        ObjectMapper lenient = JsonMapper.builder().enable(JsonReadFeature.ALLOW_TRAILING_COMMA).build();
        String text = Files.readString(ReferenceData.dir("murano").resolve("sources/SampleExecutionPlan.json")).replace("\uFEFF", "");
        Map<String, Object> converted = VCurrentConverter.toVNext(lenient.readValue(text, Map.class), "m1");

        assertThat(converted.get("Parameters")).isEqualTo(Map.of("New-Person_FirstName", "MyFirstName",
                "New-Person_LastName", "MyLastName", "New-Person_Phone", "123-456"));
        assertThat(converted.get("Body")).isEqualTo("""
                results = []
                try:
                    results.append(getattr(ps, 'New-Person')(FirstName=args['New-Person_FirstName'], \
                LastName=args['New-Person_LastName'], Phone=args['New-Person_Phone']))
                    results.append(ps.t3())
                    results.append(getattr(ps, 'Get-Date')())
                    results.append(ps.TestThrow())
                except Exception as e:
                    api.logError(e)
                    raise
                return results
                """);
        assertThat(List.copyOf(((Map<?, ?>) converted.get("Files")).keySet())).isEqualTo(List.of("script0", "script1", "script2", "entryPoint"));
        assertThat(((Map<?, ?>) ((Map<?, ?>) converted.get("Files")).get("entryPoint")).get("Body")).isEqualTo(
                ". \"$PSScriptRoot/script0.ps1\"\n. \"$PSScriptRoot/script1.ps1\"\n. \"$PSScriptRoot/script2.ps1\"\n");
        Map<?, ?> ps = (Map<?, ?>) ((Map<?, ?>) converted.get("Scripts")).get("ps");
        assertThat(ps.get("Files")).isEqualTo(List.of("script0", "script1", "script2"));
    }

    @Test
    void rebootOnCompletionBecomesApiReboot() {
        String onSuccess = (String) VCurrentConverter.toVNext(Map.of("Commands", List.of(Map.of("Name", "A")),
                "RebootOnCompletion", 1), "m").get("Body");
        assertThat(onSuccess).contains("    results.append(ps.A())\n    api.reboot()\nexcept");
        String always = (String) VCurrentConverter.toVNext(Map.of("Commands", List.of(Map.of("Name", "A")),
                "RebootOnCompletion", 2), "m").get("Body");
        assertThat(always).contains("finally:\n    api.reboot()\n");
        assertThat((String) VCurrentConverter.toVNext(Map.of(), "m").get("Body")).doesNotContain("reboot").contains("    pass\n");
    }

    @Test
    void namesThatAreNotIdentifiersAreQuotedAsPythonStrings() {
        String body = (String) VCurrentConverter.toVNext(Map.of("Commands", List.of(Map.of("Name", "It's\\", "Arguments",
                Map.of("a b", 1)))), "m").get("Body");
        assertThat(body).contains("getattr(ps, 'It\\'s\\\\')(**{'a b': args['It\\'s\\\\_a b']})");
    }

    @Test
    void badVCurrentPlansAreFormatErrors() {
        for (Map<String, Object> bad : List.<Map<String, Object>>of(Map.of("Scripts", "x"), Map.of("Scripts", List.of(1)),
                Map.of("Scripts", List.of("***")), Map.of("Commands", Map.of()), Map.of("Commands", List.of(Map.of())),
                Map.of("Commands", List.of(Map.of("Name", "A", "Arguments", List.of()))), Map.of("RebootOnCompletion", 3))) {
            assertThatThrownBy(() -> VCurrentConverter.toVNext(bad, "m")).as(bad.toString())
                    .isInstanceOfSatisfying(PlanException.class, e -> assertThat(e.code()).isEqualTo(2));
        }
    }

    @Test
    void resultsConvertBackInTheShapeMuranosEngineReads() {
        java.time.Instant now = java.time.Instant.parse("2026-01-01T00:00:00Z");
        Map<String, Object> details3 = new java.util.LinkedHashMap<>();
        details3.put("ErrorCode", 3);
        details3.put("AdditionalInfo", "i");
        assertThat(ExecutionResult.failure("r", "s", new PlanException(3, "m", "i"), now).toVCurrent())
                .as("a plan that did not run: the engine's exception list at the root")
                .isEqualTo(Map.of("IsException", true, "Result", java.util.Arrays.asList("ExecutionPlanError", "m", null, details3)));
        Map<String, Object> details104 = new java.util.LinkedHashMap<>();
        details104.put("ErrorCode", 104);
        details104.put("AdditionalInfo", Map.of("exitCode", 4));
        assertThat(ExecutionResult.failure("r", "s", new PlanException(104, "m", Map.of("exitCode", 4)), now).toVCurrent())
                .isEqualTo(Map.of("IsException", false, "Result", List.of(Map.of("IsException", true,
                        "Result", java.util.Arrays.asList("ExecutionPlanError", "m", null, details104)))));
        Map<String, Object> python = Map.of("type", "ValueError", "traceback", "Traceback …");
        Map<String, Object> details1 = new java.util.LinkedHashMap<>();
        details1.put("ErrorCode", 1);
        details1.put("AdditionalInfo", python);
        assertThat(ExecutionResult.failure("r", "s", new PlanException(1, "bad value", python), now).toVCurrent())
                .as("a Python exception keeps its type")
                .isEqualTo(Map.of("IsException", false, "Result", List.of(Map.of("IsException", true,
                        "Result", java.util.Arrays.asList("ValueError", "bad value", null, details1)))));
        assertThat(ExecutionResult.success("r", "s", List.of(1, Map.of("a", 2)), now).toVCurrent())
                .as("one entry per command; the engine returns the last one's Result")
                .isEqualTo(Map.of("IsException", false, "Result", List.of(Map.of("IsException", false, "Result", 1),
                        Map.of("IsException", false, "Result", Map.of("a", 2)))));
        assertThat(ExecutionResult.success("r", "s", List.of(), now).toVCurrent())
                .isEqualTo(Map.of("IsException", false, "Result", List.of()));
    }

    @Test
    void theResultDocumentHasTheSeedsFields() throws Exception {
        ExecutionResult result = ExecutionResult.failure("r1", "p1", new PlanException(100, "Script x returned error code",
                null), java.time.Instant.parse("2026-01-01T00:00:00.123456Z"));
        assertThat(PlanJson.write(result.toWire())).isEqualTo("{\"FormatVersion\":\"2.0.0\",\"ID\":\"r1\","
                + "\"SourceID\":\"p1\",\"Action\":\"Execute:Result\",\"ErrorCode\":100,\"Body\":{\"Message\":"
                + "\"Script x returned error code\",\"AdditionalInfo\":null},\"Time\":\"2026-01-01T00:00:00.123Z\"}");
        LogMessage log = new LogMessage("l1", "p1", LogMessage.Level.WARNING, "careful", java.time.Instant.parse("2026-01-01T00:00:00Z"), null);
        assertThat(PlanJson.write(log.toWire())).isEqualTo("{\"FormatVersion\":\"2.0.0\",\"ID\":\"l1\","
                + "\"SourceID\":\"p1\",\"Level\":\"warning\",\"Body\":\"careful\",\"Action\":\"log\",\"Time\":\"2026-01-01T00:00:00Z\"}");
    }
}

package io.drover.agent.plans;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.plans.PlanJson;
import io.drover.core.testing.ReferenceData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every plan of {@code reference-data/murano} through the agent's plan service with the host's python3 and shell:
 * the result must be the reference agent's, apart from ID and Time, and apart from the differences below, where
 * Drover follows the specification (each is listed in docs/execution-plans.md).
 */
class MuranoConformanceTest {
    /** What Drover answers where it differs from the reference agent: the error code and the Body. */
    record Difference(String why, int errorCode, Object body) {
    }

    static final Map<String, Difference> DIFFERENCES = Map.of(
            "engine-test-chef", new Difference("the seed defines no per-version list of types (Chef is known); the 2.0.0 plan still may not download files",
                    2, error("Download file is Type not valid for this version 2.0.0")),
            "engine-wait-ready", new Difference("every key of a plan is optional in the seed, so an empty plan runs",
                    0, null),
            "agent-test-berkshelf-wrong-version", new Difference("the seed's code for an invalid set of options is 5",
                    5, error("Script has an option useBerkshelf invalid for version 2.1.0")),
            "v1-askdnsip", new Difference("the seed converts vCurrent plans; without pwsh the converted plan answers 3, "
                    + "sent back in vCurrent form", -1, null));

    static Stream<String> vectors() throws Exception {
        try (Stream<Path> files = Files.list(ReferenceData.dir("murano"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".plan.json"))
                    .map(n -> n.substring(0, n.length() - ".plan.json".length())).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void answersAsTheReferenceAgentOrAsTheSeedSays(String name, @TempDir Path root) throws Exception {
        Path dir = ReferenceData.dir("murano");
        Map<?, ?> expected = (Map<?, ?>) PlanJson.read(Files.readAllBytes(dir.resolve(name + ".expected-result.json")));
        String messageId = (String) expected.get("amqp_message_id_of_plan");
        Map<?, ?> reference = (Map<?, ?>) ((Map<?, ?>) ((List<?>) expected.get("published_by_python_agent (in order)")).get(0)).get("body");
        Files.deleteIfExists(Path.of("/tmp/putfile-target.txt"));

        PlanService.Answer answer = new PlanFixture(root).answer(Files.readString(dir.resolve(name + ".plan.json")), messageId);
        Map<String, Object> actual = answer.document();

        Difference difference = DIFFERENCES.get(name);
        if (name.equals("v1-askdnsip")) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("ErrorCode", 3);
            details.put("AdditionalInfo", null);
            assertThat(actual).as("the engine's exception list [type, message, command, details]").isEqualTo(Map.of("IsException", true,
                    "Result", java.util.Arrays.asList("ExecutionPlanError",
                            "Script ps cannot run here: PowerShell scripts need pwsh, which is not installed on this host", null, details)));
            assertThat(answer.result().errorCode()).isEqualTo(3);
            return;
        }
        assertThat(actual.keySet()).containsExactly("FormatVersion", "ID", "SourceID", "Action", "ErrorCode", "Body", "Time");
        assertThat(actual.get("FormatVersion")).isEqualTo(reference.get("FormatVersion"));
        assertThat(actual.get("SourceID")).isEqualTo(reference.get("SourceID"));
        assertThat(actual.get("Action")).as("the seed names the result action Execute:Result").isEqualTo("Execute:Result");
        assertThat((String) actual.get("ID")).matches("[0-9a-f]{32}");
        assertThat((String) actual.get("Time")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        if (difference == null) {
            assertThat(actual.get("ErrorCode")).isEqualTo(reference.get("ErrorCode"));
            assertThat(actual.get("Body")).isEqualTo(reference.get("Body"));
        } else {
            assertThat(actual.get("ErrorCode")).as(difference.why() + ": " + actual).isEqualTo(difference.errorCode());
            assertThat(actual.get("Body")).as(difference.why()).isEqualTo(difference.body());
        }
        if (name.equals("putfile")) {
            assertThat(Files.readString(Path.of("/tmp/putfile-target.txt"))).isEqualTo("hello file\n");
            Files.delete(Path.of("/tmp/putfile-target.txt"));
        }
        Path work = root.resolve("var/lib/drover-agent/plans/work");
        if (Files.exists(work)) {
            try (Stream<Path> left = Files.list(work)) {
                assertThat(left).as("the working directory is removed after the run").isEmpty();
            }
        }
    }

    static Map<String, Object> error(String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("Message", message);
        body.put("AdditionalInfo", null);
        return body;
    }
}

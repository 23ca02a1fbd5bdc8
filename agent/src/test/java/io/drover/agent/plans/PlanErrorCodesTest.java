package io.drover.agent.plans;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** For every error code of the specification, a plan that produces it, run by the real runner. */
class PlanErrorCodesTest {
    static Map<String, Object> plan(String body) {
        return plan(body, Map.of(), Map.of());
    }

    static Map<String, Object> plan(String body, Map<String, Object> scripts, Map<String, Object> files) {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("FormatVersion", "2.1.0");
        plan.put("ID", "plan-1");
        plan.put("Body", body);
        plan.put("Parameters", Map.of("name", "world"));
        plan.put("Scripts", scripts);
        plan.put("Files", files);
        return plan;
    }

    static Map<String, Object> bash(String text, Map<String, Object> options) {
        return Map.of("Type", "Bash", "EntryPoint", "f", "Options", options);
    }

    static Map<String, Object> file(String text) {
        return Map.of("f", Map.of("Name", "run.sh", "BodyType", "Text", "Body", text));
    }

    static Stream<Arguments> codes() {
        return Stream.of(
                Arguments.of(0, plan("return 'hello ' + args.name"), "hello world"),
                Arguments.of(1, plan("raise RuntimeError('broken on purpose')"), "broken on purpose"),
                Arguments.of(2, Map.of("FormatVersion", "2.1.0", "Scripts", "not a map"), "Scripts is not a dictionary"),
                Arguments.of(3, plan("return 1", Map.of("s", Map.of("Type", "Puppet", "EntryPoint", "m::r")), Map.of()),
                        "Puppet scripts need puppet, which is not installed on this host"),
                Arguments.of(4, plan("return (1"), "SyntaxError in the Body"),
                Arguments.of(4, plan("import no_such_module_here"), "ImportError in the Body"),
                Arguments.of(5, plan("return 1", Map.of("s", bash("", Map.of("colour", "red"))), file("true")), "unknown option 'colour'"),
                Arguments.of(6, plan("return args.missing"), "The execution plan has no parameter 'missing'"),
                Arguments.of(6, plan("return args['also_missing']"), "also_missing"),
                Arguments.of(7, plan("return 1", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "nope")), Map.of()),
                        "Script s misses entry point nope"),
                Arguments.of(8, plan("return s()", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f", "Files", List.of("d"))),
                        Map.of("f", Map.of("Name", "run.sh", "BodyType", "Text", "Body", "true"),
                                "d", Map.of("Name", "d.bin", "Type", "Downloadable", "URL", "http://127.0.0.1:9/nothing"))),
                        "Cannot fetch file d from http://127.0.0.1:9/nothing"),
                Arguments.of(9, Map.of("FormatVersion", "2.9.0"), "Unsupported format version 2.9.0"),
                Arguments.of(10, timed(plan("return s()", Map.of("s", bash("", Map.of())), file("sleep 30")), 1), "timed out"),
                Arguments.of(10, plan("return s()", Map.of("s", bash("", Map.of("timeout", 1))), file("sleep 30")), "timed out after"),
                Arguments.of(100, plan("return s()", Map.of("s", bash("", Map.of())), file("echo out; echo err >&2; exit 4")),
                        "Script s returned error code"),
                Arguments.of(105, plan("api.setExitCode(5)\nreturn 'done'"), "The plan set exit code 5"),
                Arguments.of(107, plan("api.setExitCode(7)\nraise ValueError('and then failed')"), "and then failed"));
    }

    static Map<String, Object> timed(Map<String, Object> plan, int seconds) {
        plan.put("Timeout", seconds);
        return plan;
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("codes")
    void eachCodeHasAPlanThatProducesIt(int code, Map<String, Object> plan, String message, @TempDir Path root) throws Exception {
        long started = System.nanoTime();
        Map<String, Object> result = new PlanFixture(root).run(plan, "message-1");
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(code);
        if (code == 0) {
            assertThat(result.get("Body")).isEqualTo(message);
        } else {
            assertThat(String.valueOf(((Map<?, ?>) result.get("Body")).get("Message"))).contains(message);
        }
        if (code == 10) {
            assertThat((System.nanoTime() - started) / 1_000_000_000.0).as("a timeout kills the script at once").isLessThan(20);
        }
        if (code == 100) {
            assertThat(((Map<?, ?>) result.get("Body")).get("AdditionalInfo")).isEqualTo(Map.of("exitCode", 4, "stdout", "out", "stderr", "err"));
        }
    }
}

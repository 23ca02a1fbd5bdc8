package io.drover.agent.plans;

import static io.drover.agent.plans.PlanErrorCodesTest.plan;
import static org.assertj.core.api.Assertions.assertThat;

import io.drover.agent.supervisor.Shell;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a call's arguments reach each platform: the Application DSL, Python functions with real keywords and return
 * values, the SaltStack timeout, a script's Version; run by the real runner with the host's sh and python3.
 */
class ScriptArgumentsTest {
    @TempDir
    Path root;

    static final Map<String, Object> TOOL = Map.of("t", Map.of("Name", "tool", "BodyType", "Text",
            "Body", "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\ninput=$(cat); if [ -n \"$input\" ]; then printf 'stdin:%s' \"$input\"; fi\n"));
    static final Map<String, Object> APP = Map.of("app", Map.of("Type", "Application", "EntryPoint", "t"));

    private Object body(PlanFixture agent, String body, Map<String, Object> scripts, Map<String, Object> files) {
        Map<String, Object> result = agent.run(plan(body, scripts, files), "m");
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(0);
        return result.get("Body");
    }

    @Test
    void applicationCommandLinesTakeEveryArgumentAndKeyword() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        assertThat(body(agent, "return app('--name {0} --to {who} {1}', 'a b', \"it's; rm -rf /\", who=args.name).stdout",
                APP, TOOL)).as("placeholders by position and name, each value one quoted word")
                .isEqualTo("[--name][a b][--to][world][it's; rm -rf /]");
        assertThat(body(agent, "return app('-v', 1, [2, 3], None, flag=True).stdout", APP, TOOL))
                .as("arguments no placeholder names are appended: positional, then --name=value")
                .isEqualTo("[-v][1][[2,3]][][--flag=true]");
        assertThat(body(agent, "return app(commandline='x {n}', n='y', input='fed').stdout", APP, TOOL))
                .as("commandline= and input= as the reference agent's keywords").isEqualTo("[x][y]stdin:fed");
        assertThat(body(agent, "return app('{{literal}} {0}}}', 'v').stdout", APP, TOOL)).isEqualTo("[{literal}][v}]");
        assertThat(body(agent, "return app('a ${HOME:+set} {x}').stdout", APP, TOOL))
                .as("without other arguments the command line is taken as it is").isEqualTo("[a][set][{x}]");

        for (String wrong : List.of("app('{2}', 'only one')", "app('{who}', 1)", "app('{ x }', 1)", "app('{0', 1)", "app('}', 1)")) {
            Map<String, Object> result = agent.run(plan("return " + wrong, APP, TOOL), "m");
            assertThat(result.get("ErrorCode")).as(wrong).isEqualTo(1);
            assertThat(String.valueOf(result.get("Body"))).as(wrong).contains("The Application command line is wrong");
        }
    }

    @Test
    void pythonFunctionsGetKeywordsAsKeywordsAndAnswerTheirReturnValue() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> scripts = Map.of("py", Map.of("Type", "Python", "EntryPoint", "p"));
        Map<String, Object> files = Map.of("p", Map.of("Name", "lib.py", "BodyType", "Text", "Body", """
                import sys
                def describe(a, b=0, *rest, scale=1, **more):
                    return {'a': a, 'b': b, 'rest': list(rest), 'scale': scale, 'more': more, 'types': [type(a).__name__, type(scale).__name__]}
                def nothing():
                    print('printed, not returned')
                def odd():
                    return {1, 2}
                def fails(x):
                    raise ValueError('bad ' + str(x))
                if __name__ == '__main__':
                    print('whole:' + ' '.join(sys.argv[1:]))
                """));
        assertThat(body(agent, "return py.describe(1, 2, 'r', scale=2.5, input='kw', deep={'k': [1, None]})", scripts, files))
                .isEqualTo(Map.of("a", 1, "b", 2, "rest", List.of("r"), "scale", 2.5,
                        "more", Map.of("input", "kw", "deep", Map.of("k", Arrays.asList(1, null))), "types", List.of("int", "float")));
        assertThat(body(agent, "return py.describe(a='only')", scripts, files)).asString().contains("a=only", "b=0");
        assertThat(body(agent, "return [py.nothing(), py.odd()]", scripts, files)).as("None, and what JSON cannot hold as str")
                .isEqualTo(Arrays.asList(null, "{1, 2}"));
        assertThat(body(agent, "return py('x', k=1).stdout", scripts, files)).as("a whole script still gets argv")
                .isEqualTo("whole:x --k=1");

        Map<String, Object> failed = agent.run(plan("return py.fails(3)", scripts, files), "m");
        assertThat(failed.get("ErrorCode")).isEqualTo(100);
        assertThat(String.valueOf(failed.get("Body"))).contains("ValueError: bad 3");
    }

    @Test
    void saltStackFunctionsStopAtTheScriptsTimeoutWith10() throws Exception {
        String marker = "47.0" + System.nanoTime() % 1000;
        PlanFixture agent = new PlanFixture(root, (fun, args) -> {
            try {
                Shell.Outcome outcome = Shell.run(List.of("sleep", marker), root, Duration.ofMinutes(10), 1024);
                return new SaltStackExecutor.Reply(outcome.text(), outcome.exit());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new SaltStackExecutor.Reply("interrupted", 1);
            } catch (java.io.IOException e) {
                return new SaltStackExecutor.Reply(e.getMessage(), 1);
            }
        });
        Map<String, Object> scripts = Map.of("salt", Map.of("Type", "SaltStack", "EntryPoint", "s", "Options", Map.of("timeout", 1)));
        Map<String, Object> files = Map.of("s", Map.of("Name", "s.sls", "BodyType", "Text", "Body", "[]"));
        long started = System.nanoTime();
        Map<String, Object> result = agent.run(plan("return salt.cmd_run('sleep')", scripts, files), "m");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(10);
        assertThat(String.valueOf(result.get("Body"))).contains("cmd.run did not finish within 1.0 s; it was stopped");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)));
    }

    @Test
    void aScriptNeedingANewerExecutorIsRefusedWith3() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> result = agent.run(plan("return app('x').stdout",
                Map.of("app", Map.of("Type", "Application", "EntryPoint", "t", "Version", "1.1.0")), TOOL), "m");
        assertThat(result.get("ErrorCode")).isEqualTo(3);
        assertThat(String.valueOf(result.get("Body"))).contains("needs version 1.1.0 of the Application platform");
        assertThat(body(agent, "return app('x').stdout", Map.of("app", Map.of("Type", "Application", "EntryPoint", "t",
                "Version", "1.0.0")), TOOL)).as("the Version the reference engine's templates write").isEqualTo("[x]");
    }
}

package io.drover.agent.plans;

import static io.drover.agent.plans.PlanErrorCodesTest.plan;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plan author's or an end user's values against the agent: an Application value is never read as shell text,
 * wherever the command line puts its placeholder; a Python function cannot make the agent read without end.
 */
class PlanArgumentAttacksTest {
    @TempDir
    Path root;

    static final Map<String, Object> TOOL = Map.of("t", Map.of("Name", "tool", "BodyType", "Text",
            "Body", "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\ninput=$(cat); if [ -n \"$input\" ]; then printf 'stdin:%s' \"$input\"; fi\n"));
    static final Map<String, Object> APP = Map.of("app", Map.of("Type", "Application", "EntryPoint", "t"));

    private Map<String, Object> run(PlanFixture agent, String body, String value) {
        Map<String, Object> plan = plan(body, APP, TOOL);
        plan.put("Parameters", Map.of("v", value));
        return agent.run(plan, "m");
    }

    @Test
    void applicationValuesAreNeverShellTextInQuotesSubstitutionsOrHereDocuments() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Path pwned = root.resolve("pwned");
        String touch = "$(touch " + pwned + ")";
        Map<String, Object> quoted = run(agent, "return app('\"{0}\"', args.v).stdout", touch);
        assertThat(quoted.get("Body")).as(String.valueOf(quoted)).isEqualTo("[" + touch + "]");
        Map<String, Object> inWord = run(agent, "return app('--m=\"x{0}y\"', args.v).stdout", "a  b*");
        assertThat(inWord.get("Body")).as("inside double quotes the value stays one word, unglobbed").isEqualTo("[--m=xa  b*y]");
        Map<String, Object> substituted = run(agent, "return app('\"$(printf %s {0})\"', args.v).stdout", "x;touch " + pwned);
        assertThat(substituted.get("Body")).as(String.valueOf(substituted)).isEqualTo("[x;touch " + pwned + "]");
        Map<String, Object> hereDoc = run(agent, "return app('<<EOF\\n{0}\\nEOF', args.v).stdout", touch);
        assertThat(String.valueOf(hereDoc.get("Body"))).as(String.valueOf(hereDoc)).contains(touch);
        for (String body : List.of("return app(\"'{0}'\", args.v).stdout", "return app('\\\\{0}', args.v).stdout")) {
            Map<String, Object> refused = run(agent, body, touch);
            assertThat(refused.get("ErrorCode")).as(body + ": " + refused).isEqualTo(1);
            assertThat(String.valueOf(refused.get("Body"))).as(body).contains("The Application command line is wrong");
        }
        assertThat(pwned).as("no value ran as a command").doesNotExist();

        Map<String, Object> nul = run(agent, "return app('{0}', args.v + chr(0) + 'b').stdout", "a");
        assertThat(nul.get("ErrorCode")).as(String.valueOf(nul)).isNotEqualTo(0);
        assertThat(run(agent, "return app('{0}', args.v).stdout", "after").get("Body")).as("the agent runs on").isEqualTo("[after]");
    }

    @Test
    void aPythonFunctionSwappingItsResultFileForDevZeroIsRefusedNotReadForever() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> scripts = Map.of("py", Map.of("Type", "Python", "EntryPoint", "p"));
        Map<String, Object> files = Map.of("p", Map.of("Name", "lib.py", "BodyType", "Text", "Body", """
                import os, sys
                def swap():
                    os.remove(sys.argv[4])
                    os.symlink('/dev/zero', sys.argv[4])
                    return 1
                """));
        Map<String, Object> result = agent.run(plan("return py.swap()", scripts, files), "m");
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(1);
        assertThat(String.valueOf(result.get("Body"))).contains("not a regular file");
    }

    @Test
    void aScriptThatSwapsItsOutputFileForAFifoIsAnsweredNotWaitedOnForever() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> scripts = Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f"));
        Map<String, Object> files = Map.of("f", Map.of("Name", "s.sh", "BodyType", "Text",
                "Body", "f=$(readlink /proc/$$/fd/1); rm \"$f\"; mkfifo \"$f\"; echo gone"));
        java.util.concurrent.CompletableFuture<Map<String, Object>> run = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> agent.run(plan("return s()", scripts, files), "m"));
        Map<String, Object> result = run.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(1);
        assertThat(String.valueOf(result.get("Body"))).contains("not a regular file");
    }
}

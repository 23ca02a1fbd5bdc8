package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Execution plans over the Drover transport, as a user runs them: {@code drover plan run} against a real server
 * and two real agents, which run the Body with the host's python3 and the scripts with its shell.
 */
class ExecutionPlanEndToEndTest {
    Fleet fleet;
    @TempDir
    Path roots;
    @TempDir
    Path plans;

    @BeforeEach
    void start() {
        fleet = new Fleet(TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "*")), roots);
        fleet.agent("web-1");
        fleet.agent("web-2");
        await().atMost(Duration.ofSeconds(20)).until(() -> fleet.drover("run", "-L", "web-1,web-2", "test.ping", "--timeout", "3").exit() == 0);
    }

    @AfterEach
    void stop() {
        fleet.close();
    }

    Path write(String name, String text) throws Exception {
        return Files.writeString(plans.resolve(name), text);
    }

    @Test
    void aPlanRunsOnEveryTargetedHostWithLiveLogsAndResults() throws Exception {
        Path plan = write("hello.yaml", """
                FormatVersion: 2.1.0
                Name: Say hello
                Parameters:
                  who: nobody
                Body: |
                  api.logInfo('greeting ' + args.who)
                  out = hello(args.who)
                  return out.stdout
                Scripts:
                  hello:
                    Type: Bash
                    EntryPoint: hello.sh
                Files:
                  hello.sh:
                    Name: hello.sh
                    BodyType: Text
                    Body: |
                      echo "hello $1 from $(basename "$PWD")"
                """);
        Fleet.Run run = fleet.drover("plan", "run", plan.toString(), "web-*", "--param", "who=world");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("web-1 [info] greeting world", "web-2 [info] greeting world",
                "web-1: OK", "web-2: OK", "hello world from hello");
        assertThat(run.err()).contains("2 succeeded, 0 failed");

        String id = run.err().lines().filter(l -> l.startsWith("plan ")).findFirst().orElseThrow().split(" ")[1];
        Fleet.Run get = fleet.drover("plan", "get", id);
        assertThat(get.out()).contains("SUCCEEDED", "web-1", "OK", "[info] greeting world");
        assertThat(fleet.drover("plan", "list").out()).contains(id, "Say hello", "SUCCEEDED");
        Fleet.Run json = fleet.drover("plan", "get", id, "-o", "json");
        assertThat(json.out()).contains("\"error_code\" : 0", "\"SourceID\" : \"" + id + "\"");
    }

    /** The guide's first example, as docs/execution-plans.md prints it: its plan file and its command, word for word. */
    @Test
    void theGuidesFirstPlanRunsAsWritten() throws Exception {
        String guide = Files.readString(Path.of("..", "docs", "execution-plans.md"));
        String section = guide.substring(guide.indexOf("## A first plan"));
        String yaml = between(section, "```yaml\n", "```");
        String command = between(section, "```sh\n", "```").strip();
        Path plan = write("hello.yaml", yaml);
        assertThat(command).startsWith("drover plan run hello.yaml ");
        List<String> args = new java.util.ArrayList<>();
        java.util.regex.Matcher words = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(command.substring("drover ".length()));
        while (words.find()) {
            args.add(words.group(1) != null ? words.group(1) : words.group(2));
        }
        args.set(args.indexOf("hello.yaml"), plan.toString());
        Fleet.Run run = fleet.drover(args.toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("web-1 [info] greeting world", "web-2 [info] greeting world", "web-1: OK", "web-2: OK",
                "hello world from ");
        assertThat(run.err()).contains("sent to 2 agent(s)", "2 succeeded, 0 failed");
    }

    static String between(String text, String start, String end) {
        int from = text.indexOf(start) + start.length();
        return text.substring(from, text.indexOf(end, from));
    }

    @Test
    void aFailingHostFailsTheRunWithItsCodeAndOutput() throws Exception {
        Path plan = write("fail.json", """
                {"FormatVersion": "2.1.0", "Body": "return s()",
                 "Scripts": {"s": {"Type": "Bash", "EntryPoint": "f"}},
                 "Files": {"f": {"Name": "f.sh", "BodyType": "Text", "Body": "echo partial; echo broken >&2; exit 3"}}}
                """);
        Fleet.Run run = fleet.drover("plan", "run", plan.toString(), "web-1");
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.out()).contains("web-1: FAILED (100) Script s returned error code", "exitCode: 3", "stderr: broken");
        assertThat(run.err()).contains("0 succeeded, 1 failed");
    }

    @Test
    void aHostThatLogsWithoutEndKeepsAThousandLinesOnTheServer() throws Exception {
        Path plan = write("chatty.yaml", """
                FormatVersion: 2.0.0
                Body: |
                  for i in range(1005):
                      api.logInfo('line %d' % i)
                  return 'done'
                """);
        Fleet.Run run = fleet.drover("plan", "run", plan.toString(), "web-1", "-o", "json");
        assertThat(run.exit()).as(run.err()).isZero();
        String id = run.err().lines().filter(l -> l.startsWith("plan ")).findFirst().orElseThrow().split(" ")[1];
        await().atMost(Duration.ofSeconds(20)).until(() -> fleet.server.get("/api/v1/plans/" + id, fleet.server.adminToken())
                .body().path("logs").size() == 1000);
        assertThat(fleet.server.get("/api/v1/plans/" + id, fleet.server.adminToken()).body().path("logs").get(999).path("body")
                .asText()).isEqualTo("line 999");
    }

    @Test
    void aBadPlanIsRefusedBeforeAnythingIsSent() throws Exception {
        Path plan = write("bad.json", "{\"FormatVersion\": \"2.1.0\", \"Scripts\": {\"s\": {\"Type\": \"Bash\", \"EntryPoint\": \"missing\"}}}");
        Fleet.Run run = fleet.drover("plan", "run", plan.toString(), "*");
        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("error 7: Script s misses entry point missing");
        assertThat(fleet.drover("plan", "list").out()).doesNotContain("missing");

        Path notAPlan = write("list.yaml", "- 1\n- 2\n");
        assertThat(fleet.drover("plan", "run", notAPlan.toString(), "*").err()).contains("its top level must be a mapping");
        assertThat(fleet.drover("plan", "run", plans.resolve("absent.json").toString(), "*").err()).contains("cannot read the plan");
    }
}

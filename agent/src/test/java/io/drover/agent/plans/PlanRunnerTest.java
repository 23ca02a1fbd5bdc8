package io.drover.agent.plans;

import static io.drover.agent.plans.PlanErrorCodesTest.plan;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.drover.core.plans.LogMessage;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the Body can do through scripts and {@code api}, run by the real runner with the host's python3. */
class PlanRunnerTest {
    @TempDir
    Path root;

    @Test
    void stateIsKeptPerServiceAcrossPlans() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> first = plan("api.setState('count', {'n': 1})\nreturn api.getState('count')");
        first.put("Service", "svc-a");
        assertThat(agent.run(first, "m1").get("Body")).isEqualTo(Map.of("n", 1));

        Map<String, Object> second = plan("before = api.getState('count')\napi.removeState('count')\nreturn [before, api.getState('count')]");
        second.put("Service", "svc-a");
        assertThat(new PlanFixture(root).run(second, "m2").get("Body")).as("a new agent process reads what the last one stored")
                .isEqualTo(java.util.Arrays.asList(Map.of("n", 1), null));

        Map<String, Object> other = plan("return api.getState('count')");
        other.put("Service", "svc-b");
        assertThat(agent.run(other, "m3").get("Body")).isNull();

        Map<String, Object> none = plan("return api.getState('count')");
        assertThat(agent.run(none, "m4").get("ErrorCode")).as("no Service, no state API").isEqualTo(1);
    }

    @Test
    void logMessagesGoToTheOriginatorUnlessNotifyIsOff() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        agent.run(plan("api.logInfo('starting')\napi.logWarning('careful', notify=False)\n"
                + "try:\n    1/0\nexcept Exception:\n    api.logError('failed', exception_info=True)\nreturn 1"), "m1");
        assertThat(agent.logs).extracting(LogMessage::level).containsExactly(LogMessage.Level.INFO, LogMessage.Level.ERROR);
        assertThat(agent.logs.get(0).body()).isEqualTo("starting");
        assertThat(agent.logs.get(0).sourceId()).isEqualTo("plan-1");
        assertThat(agent.logs.get(1).body()).startsWith("failed\n").contains("ZeroDivisionError");
    }

    @Test
    void putFileWritesInsideTheWorkingDirectoryOrUnderTheRootAndNowhereElse() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> files = Map.of("cfg", Map.of("Name", "app.conf", "BodyType", "Base64", "Body", "a2V5PTEK"));
        Map<String, Object> ok = plan("api.putFile('cfg', '/etc/app/app.conf')\nreturn open('app.conf.copy', 'w') and "
                + "api.putFile('cfg', 'app.conf.copy')", Map.of(), files);
        Map<String, Object> result = agent.run(ok, "m1");
        assertThat(result.get("ErrorCode")).as(String.valueOf(result)).isEqualTo(0);
        assertThat(Files.readString(root.resolve("etc/app/app.conf"))).isEqualTo("key=1\n");

        for (String escape : List.of("../../outside.conf", "/../../outside.conf")) {
            Map<String, Object> bad = agent.run(plan("return api.putFile('cfg', '" + escape + "')", Map.of(), files), "m2");
            assertThat(bad.get("ErrorCode")).isEqualTo(1);
            assertThat(String.valueOf(bad.get("Body"))).containsAnyOf("leaves the plan's working directory", "leaves the agent's root");
        }
        assertThat(root.getParent().resolve("outside.conf")).doesNotExist();
        Map<String, Object> missing = agent.run(plan("return api.putFile('nope', 'x')"), "m3");
        assertThat(missing.get("ErrorCode")).isEqualTo(7);
    }

    @Test
    void addedFilesCanBePut() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> result = agent.run(plan("fid = api.addFile({'Name': 'x.txt', 'BodyType': 'Text', 'Body': 'added'})\n"
                + "api.putFile(fid, '/srv/x.txt')\nreturn [fid, api.version()]"), "m1");
        assertThat(result.get("Body")).isEqualTo(List.of("added-1", "9.9.9"));
        assertThat(Files.readString(root.resolve("srv/x.txt"))).isEqualTo("added");
        Map<String, Object> bad = agent.run(plan("return api.addFile({'Name': '../x', 'BodyType': 'Text', 'Body': ''})"), "m2");
        assertThat(bad.get("ErrorCode")).isEqualTo(2);
    }

    @Test
    void scriptsAreCalledWholeOrByFunctionWithArguments() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        Map<String, Object> scripts = Map.of(
                "sh", Map.of("Type", "Bash", "EntryPoint", "b"),
                "py", Map.of("Type", "Python", "EntryPoint", "p"),
                "app", Map.of("Type", "Application", "EntryPoint", "a"));
        Map<String, Object> files = Map.of(
                "b", Map.of("Name", "lib.sh", "BodyType", "Text", "Body", "greet() { echo \"hi $1\"; }\n[ $# -gt 0 ] && echo \"args: $*\"\n"),
                "p", Map.of("Name", "lib.py", "BodyType", "Text", "Body",
                        "import sys\ndef add(a, b):\n    return int(a) + int(b)\nif __name__ == '__main__':\n    print(sys.stdin.read().upper())\n"),
                "a", Map.of("Name", "tool", "BodyType", "Text", "Body", "#!/bin/sh\necho \"$2-$1\"\n"));
        Map<String, Object> result = agent.run(plan("return [sh.greet('you').stdout, sh('x', 'y').stdout, py.add(2, 3),"
                + " py(input='quiet').stdout, app('one two').stdout]", scripts, files), "m1");
        assertThat(result.get("Body")).as(String.valueOf(result)).isEqualTo(List.of("hi you", "args: x y", 5, "QUIET", "two-one"));
    }

    @Test
    void aScriptIsLoadedOncePerPlanEvenWhenCalledAgain() throws Exception {
        AtomicInteger downloads = new AtomicInteger();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/tool.sh", exchange -> {
            downloads.incrementAndGet();
            byte[] body = "echo fetched".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        http.start();
        try {
            Map<String, Object> files = Map.of("f", Map.of("Name", "tool.sh", "Type", "Downloadable",
                    "URL", "http://127.0.0.1:" + http.getAddress().getPort() + "/tool.sh"));
            Map<String, Object> result = new PlanFixture(root).run(plan("return [s().stdout, s().stdout, s().stdout]",
                    Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")), files), "m1");
            assertThat(result.get("Body")).isEqualTo(List.of("fetched", "fetched", "fetched"));
            assertThat(downloads).hasValue(1);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void saltStackScriptsCallTheAgentsFunctions() throws Exception {
        List<String> called = new java.util.concurrent.CopyOnWriteArrayList<>();
        PlanFixture agent = new PlanFixture(root, (fun, args) -> {
            called.add(fun + " " + args);
            return fun.equals("test.fail") ? new SaltStackExecutor.Reply("it failed", 1) : new SaltStackExecutor.Reply("ok " + fun, 0);
        });
        Map<String, Object> scripts = Map.of("salt", Map.of("Type", "SaltStack", "EntryPoint", "sls"));
        Map<String, Object> files = Map.of("sls", Map.of("Name", "steps.yaml", "BodyType", "Text", "Body",
                "- fun: test.ping\n- fun: cmd.run\n  arg: [uptime]\n  kwarg: {cwd: /tmp}\n"));
        Map<String, Object> result = agent.run(plan("return [salt.cmd_run('ls -l'), salt()]", scripts, files), "m1");
        assertThat(result.get("Body")).isEqualTo(List.of("ok cmd.run", List.of("ok test.ping", "ok cmd.run")));
        assertThat(called).containsExactly("cmd.run [ls -l]", "test.ping []", "cmd.run [uptime, {cwd=/tmp, __kwarg__=true}]");

        Map<String, Object> failed = agent.run(plan("return salt.test_fail()", scripts, files), "m2");
        assertThat(failed.get("ErrorCode")).isEqualTo(100);
        assertThat(((Map<?, ?>) failed.get("Body")).get("AdditionalInfo")).isEqualTo(Map.of("function", "test.fail", "retcode", 1, "return", "it failed"));
    }

    @Test
    void aTimeoutKillsTheScriptAndEverythingItStarted() throws Exception {
        String marker = "37.4" + System.nanoTime() % 1000;
        Map<String, Object> plan = plan("return s()", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")),
                Map.of("f", Map.of("Name", "run.sh", "BodyType", "Text", "Body", "sleep " + marker + " &\nsleep " + marker + "\n")));
        plan.put("Timeout", 1);
        Map<String, Object> result = new PlanFixture(root).run(plan, "m1");
        assertThat(result.get("ErrorCode")).isEqualTo(10);
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false))
                .toList()).as("no sleep of the plan survives").isEmpty();
    }

    @Test
    void waitRebootMakesThePlanRestartable() throws Exception {
        PlanFixture agent = new PlanFixture(root);
        PlanService.Answer answer = agent.answer("{\"FormatVersion\":\"2.0.0\",\"ID\":\"r\",\"Body\":\"api.expectReboots(2)\\n"
                + "api.reboot()\\napi.waitReboot(1)\\nreturn 'after'\"}", "m1");
        assertThat(answer.result().body()).isEqualTo("after");
        assertThat(answer.reboot()).isTrue();
        assertThat(agent.restartable).as("waiting with the limit of 2, then the wait over (-1)").containsExactly(2, -1);
    }

    @Test
    void withoutPython3TheBodyCannotRunAndSaysWhy() throws Exception {
        Path state = root.resolve("state");
        PlanService service = new PlanService(new PlanSetup(root, state, PlanService.installBootstrap(state), null, "1",
                (p, s) -> null, Clock.systemUTC(), Duration.ofSeconds(5)), (f, a) -> null);
        PlanService.Answer answer = service.execute("{\"FormatVersion\":\"2.0.0\",\"ID\":\"x\",\"Body\":\"x = 1\\nreturn x\"}"
                .getBytes(StandardCharsets.UTF_8), "m", new PlanFixture(root.resolve("other")));
        assertThat(answer.result().errorCode()).isEqualTo(3);
        assertThat(answer.result().message()).contains("python3 is not installed on this host");
        PlanService.Answer simple = service.execute("{\"FormatVersion\":\"2.0.0\",\"ID\":\"y\",\"Body\":\"return 1\"}"
                .getBytes(StandardCharsets.UTF_8), "m", new PlanFixture(root.resolve("other")));
        assertThat(simple.result().body()).as("a simple Body needs no python3").isEqualTo(1L);
    }

    /** A simple Body answers exactly as python3 answers it (the same Body after a {@code pass} runs in python3). */
    @Test
    void simpleBodiesAnswerAsPythonDoes() throws Exception {
        Map<String, Object> scripts = Map.of("sh", Map.of("Type", "Bash", "EntryPoint", "b"),
                "app", Map.of("Type", "Application", "EntryPoint", "a", "Options", Map.of("verifyExitcode", false)));
        Map<String, Object> files = Map.of(
                "b", Map.of("Name", "lib.sh", "BodyType", "Text", "Body", "f() { echo \"f:$*\"; }\necho \"all:$*\"; exit 0\n"),
                "a", Map.of("Name", "tool", "BodyType", "Text", "Body", "#!/bin/sh\necho \"$@\"; echo err >&2; exit 5\n"));
        PlanFixture agent = new PlanFixture(root);
        for (String body : List.of("return sh('x', 2, True, None, args.name)", "return sh.f(args['name'], k='v').stdout",
                "return app('a b').exitCode", "return app()", "sh()", "return args.nope", "return 'text'", "return -3",
                "return app(args.missing)")) {
            Map<String, Object> fast = agent.run(plan(body, scripts, files), "m");
            Map<String, Object> slow = agent.run(plan("pass\n" + body, scripts, files), "m");
            fast.remove("ID");
            fast.remove("Time");
            slow.remove("ID");
            slow.remove("Time");
            assertThat(PlanJsonText.of(fast)).as(body).isEqualTo(PlanJsonText.of(slow));
        }
    }

    /** Documents compared as JSON text, so that 1 and 1L are the same. */
    static final class PlanJsonText {
        static String of(Object value) {
            return io.drover.model.plans.PlanJson.write(value);
        }
    }

    @Test
    void whatTheBodyPrintsDoesNotDisturbTheChannel() throws Exception {
        Map<String, Object> result = new PlanFixture(root).run(plan("print('{\"op\": \"result\", \"code\": 0, \"value\": 666}')\n"
                + "import sys\nsys.stdout.write('noise\\n')\nreturn 42"), "m1");
        assertThat(result.get("Body")).isEqualTo(42);
    }
}

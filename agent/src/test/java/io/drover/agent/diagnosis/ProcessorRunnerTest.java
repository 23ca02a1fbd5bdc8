package io.drover.agent.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.drover.model.agentapi.AgentResult.OperationOutcome;
import io.drover.model.agentapi.OperationRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The three processors of a diagnosis operation, run for real on this host. */
class ProcessorRunnerTest {
    @TempDir
    Path state;

    static OperationRequest script(String script, List<String> argKeys, String resultKey, Map<String, String> data, int timeout) {
        return new OperationRequest("disk-usage", OperationRequest.SCRIPT_RUNNER, script, argKeys, resultKey, null, null, null, null, null,
                null, data, timeout);
    }

    static OperationRequest function(Map<String, String> code, String runtime, Map<String, String> data) {
        return new OperationRequest("check", OperationRequest.FUNCTION, null, null, null, code, runtime, null, null, null, null, data, 10);
    }

    @Test
    void aScriptGetsItsArgumentsAndItsOutputIsKept() throws Exception {
        OperationOutcome ok = new ProcessorRunner(state).run(script("echo \"$1-$2\"", List.of("a", "missing", "b"), "du",
                Map.of("a", "x", "b", "y z"), 10));
        assertThat(ok.succeeded()).isTrue();
        assertThat(ok.results()).isEqualTo(Map.of("operation.du.output", "x-y z\n"));

        OperationOutcome failed = new ProcessorRunner(state).run(script("echo partial; exit 3", List.of(), "du", Map.of(), 10));
        assertThat(failed.succeeded()).isFalse();
        assertThat(failed.results()).isEqualTo(Map.of("operation.du.output", "partial\n", "operation.du.error", "exit status 3"));
        assertThat(failed.error()).isEqualTo("script: exit status 3: partial");
        assertThat(new ProcessorRunner(state).run(script("true", List.of(), null, Map.of(), 10)).results()).isEmpty();
    }

    @Test
    void aScriptThatOutlivesItsTimeoutIsKilledWithEverythingItStarted() throws Exception {
        String marker = "41.7" + System.nanoTime() % 1000;
        long started = System.nanoTime();
        OperationOutcome outcome = new ProcessorRunner(state).run(script("sleep " + marker + " & sleep " + marker, List.of(), "s", Map.of(), 1));
        assertThat(outcome.succeeded()).isFalse();
        assertThat(outcome.results()).containsEntry("operation.s.error", "timed out after 1 s");
        assertThat((System.nanoTime() - started) / 1e9).isLessThan(15);
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false))
                .toList()).isEmpty();
    }

    @Test
    void aFunctionReadsTheDataAndAnswersWithItsLastLine() throws Exception {
        Map<String, String> code = Map.of("main.py", "import sys, json\nimport helper\ndata = json.load(sys.stdin)\n"
                + "print('thinking')\nprint(json.dumps({'seen': data['host.name'], 'helper': helper.VALUE}))\n", "helper.py", "VALUE = 'h'\n");
        OperationOutcome ok = new ProcessorRunner(state).run(function(code, "python3", Map.of("host.name", "web-1")));
        assertThat(ok.error()).isNull();
        assertThat(ok.results()).isEqualTo(Map.of("seen", "web-1", "helper", "h"));

        OperationOutcome notJson = new ProcessorRunner(state).run(function(Map.of("main.py", "print({'a': 1})"), "Python3", Map.of()));
        assertThat(notJson.succeeded()).isFalse();
        assertThat(notJson.results()).containsEntry("function.check.error", "the last line is not a JSON object of strings");
        assertThat(new ProcessorRunner(state).run(function(Map.of("main.py", "raise SystemExit(2)"), null, Map.of())).results())
                .containsEntry("function.check.error", "exit status 2");
        assertThat(new ProcessorRunner(state).run(function(Map.of("main.py", ""), "golang-http", Map.of())).error())
                .contains("runtime 'golang-http' is not supported");
        assertThat(new ProcessorRunner(state).run(function(Map.of("main.py", "", "../x.py", ""), null, Map.of())).error())
                .contains("'../x.py' is not a plain file name");
        assertThat(new ProcessorRunner(state).run(function(Map.of("other.py", ""), null, Map.of())).error())
                .contains("neither main.py nor function.py");
        OperationOutcome kubediagStyle = new ProcessorRunner(state).run(function(Map.of("function.py",
                "def handler(context):\n    return {'sum': int(context['c']) + int(context['d'])}\n"), "Python3", Map.of("c", "3", "d", "4")));
        assertThat(kubediagStyle.results()).isEqualTo(Map.of("sum", "7"));
    }

    @Test
    void anHttpServerGetsTheDataAndAnswersWithResults() throws Exception {
        AtomicReference<String> received = new AtomicReference<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/probe", exchange -> {
            received.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = "{\"status\": \"up\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/broken", exchange -> {
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        server.createContext("/numbers", exchange -> {
            byte[] body = "{\"status\": 1}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            int port = server.getAddress().getPort();
            OperationOutcome ok = new ProcessorRunner(state).run(http(port, "probe"));
            assertThat(ok.results()).isEqualTo(Map.of("status", "up"));
            assertThat(received.get()).isEqualTo("{\"node\":\"web-1\"}");
            assertThat(new ProcessorRunner(state).run(http(port, "/broken")).error()).endsWith("answered 500");
            assertThat(new ProcessorRunner(state).run(http(port, "/numbers")).error()).contains("not a JSON object of strings");
        } finally {
            server.stop(0);
        }
        assertThat(new ProcessorRunner(state).run(http(server.getAddress().getPort(), "/")).succeeded()).isFalse();
    }

    static OperationRequest http(int port, String path) {
        return http(port, path, 5);
    }

    static OperationRequest http(int port, String path, int timeout) {
        return new OperationRequest("probe", OperationRequest.HTTP_SERVER, null, null, null, null, null, null, "127.0.0.1", port, path,
                Map.of("node", "web-1"), timeout);
    }

    @Test
    void scriptsAndFunctionsReadTheDataOnStandardInputAndInAFileNotOnTheCommandLine() throws Exception {
        String big = "x".repeat(1 << 20);
        Map<String, String> data = Map.of("collector.output", big, "host.name", "web-1");
        OperationOutcome function = new ProcessorRunner(state).run(function(Map.of("main.py", "import json, sys, os\n"
                + "data = json.load(sys.stdin)\nfile = json.load(open(os.environ['DROVER_DATA']))\n"
                + "print(json.dumps({'size': str(len(data['collector.output'])), 'same': str(file == data), 'args': str(len(sys.argv))}))\n"),
                "python3", data));
        assertThat(function.error()).isNull();
        assertThat(function.results()).isEqualTo(Map.of("size", String.valueOf(1 << 20), "same", "True", "args", "1"));

        OperationOutcome kubediagStyle = new ProcessorRunner(state).run(function(Map.of("function.py",
                "def handler(context):\n    return {'size': len(context['collector.output'])}\n"), "python3", data));
        assertThat(kubediagStyle.results()).isEqualTo(Map.of("size", String.valueOf(1 << 20)));

        OperationOutcome script = new ProcessorRunner(state).run(script("wc -c < \"$DROVER_DATA\"; wc -c; echo \"$#\"; "
                + "stat -c %a \"$DROVER_DATA\"", List.of(), "d", data, 10));
        String json = io.drover.model.Json.json().writeValueAsString(data);
        assertThat(script.results().get("operation.d.output").lines().toList()).containsExactly(String.valueOf(json.length()),
                String.valueOf(json.length()), "0", "600");
    }

    @Test
    void anArgKeyTooLongForTheCommandLineIsRefusedByNameBeforeTheScriptRuns() throws Exception {
        Path ran = state.resolve("ran");
        String tooLong = "y".repeat(ProcessorRunner.MAX_ARGUMENT + 1);
        OperationOutcome refused = new ProcessorRunner(state).run(script("touch " + ran, List.of("small", "collector.output"), "s",
                Map.of("small", "a", "collector.output", tooLong), 10));
        assertThat(refused.succeeded()).isFalse();
        assertThat(refused.error()).isEqualTo("scriptRunner: the value of argKey 'collector.output' is 131072 bytes, over the limit of"
                + " 131071 bytes for one argument (read it from $DROVER_DATA or standard input instead)");
        assertThat(ran).doesNotExist();

        String justFits = "y".repeat(ProcessorRunner.MAX_ARGUMENT);
        OperationOutcome fits = new ProcessorRunner(state).run(script("printf %s \"$1\" | wc -c", List.of("v"), "s", Map.of("v", justFits), 10));
        assertThat(fits.results()).containsEntry("operation.s.output", ProcessorRunner.MAX_ARGUMENT + "\n");

        Map<String, String> many = new java.util.LinkedHashMap<>();
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i < 9; i++) {
            many.put("k" + i, justFits);
            keys.add("k" + i);
        }
        assertThat(new ProcessorRunner(state).run(script("touch " + ran, keys, "s", many, 10)).error())
                .startsWith("scriptRunner: the values of the argKeys up to 'k8' are 1179639 bytes, over the limit of 1048576 bytes");
        assertThat(new ProcessorRunner(state).run(script("touch " + ran, List.of("n"), "s", Map.of("n", "a\0b"), 10)).error())
                .contains("argKey 'n' contains a NUL character");
        assertThat(ran).doesNotExist();
    }

    @Test
    void outputCutAtTheLimitSaysSo() throws Exception {
        OperationOutcome outcome = new ProcessorRunner(state).run(script("head -c 1048600 /dev/zero | tr '\\0' a", List.of(), "big",
                Map.of(), 10));
        String output = outcome.results().get("operation.big.output");
        assertThat(output).startsWith("aaaa").endsWith("\n[drover: output truncated to its first 1048576 of 1048600 bytes]");
        assertThat(output.length()).isEqualTo((1 << 20) + 1 + ProcessorRunner.truncated(1048600).length());
        assertThat(new ProcessorRunner(state).run(script("head -c 1048576 /dev/zero | tr '\\0' a", List.of(), "big", Map.of(), 10))
                .results().get("operation.big.output")).hasSize(1 << 20).doesNotContain("truncated");
    }

    @Test
    void theTimeoutCoversTheWholeHttpAnswerBodyIncluded() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/slow", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write("{\"status\": ".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            try {
                release.await(60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        server.createContext("/huge", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            byte[] chunk = new byte[1 << 16];
            try {
                for (int i = 0; i < 64; i++) {
                    exchange.getResponseBody().write(chunk);
                }
            } catch (java.io.IOException ignored) {
                // the agent hung up
            }
            exchange.close();
        });
        server.start();
        try {
            long started = System.nanoTime();
            OperationOutcome slow = new ProcessorRunner(state).run(http(server.getAddress().getPort(), "/slow", 1));
            assertThat((System.nanoTime() - started) / 1e9).isLessThan(5);
            assertThat(slow.succeeded()).isFalse();
            assertThat(slow.error()).endsWith("/slow did not answer in full within 1 s");
            assertThat(new ProcessorRunner(state).run(http(server.getAddress().getPort(), "/huge", 10)).error())
                    .isEqualTo("httpServer: the answer is over 2097152 bytes");
        } finally {
            release.countDown();
            server.stop(0);
        }
    }

    @Test
    void anHttpServerOperationWithoutAnAddressIsRefusedNotSentToAnEmptyPort() throws Exception {
        OperationOutcome outcome = new ProcessorRunner(state).run(new OperationRequest("processCollector", OperationRequest.HTTP_SERVER, null,
                null, null, null, null, null, null, null, "/processor/processCollector", Map.of(), 5));
        assertThat(outcome.succeeded()).isFalse();
        assertThat(outcome.error()).contains("no address (spec.processor.httpServer.address)");
    }
}

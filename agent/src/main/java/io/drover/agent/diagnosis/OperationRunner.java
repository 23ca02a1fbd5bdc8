package io.drover.agent.diagnosis;

import io.drover.agent.disk.DurableFiles;
import io.drover.agent.jobs.JobProcesses;
import io.drover.agent.plans.ProcessGroups;
import io.drover.model.Json;
import io.drover.model.agentapi.AgentResult.OperationOutcome;
import io.drover.model.agentapi.OperationRun;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Runs one diagnosis operation on this host, as KubeDiag's executor does: {@code scriptRunner} runs the script with
 * {@code /bin/sh} and the values of its argKeys as arguments; {@code function} runs {@code python3 main.py '<data as
 * JSON>'} in a folder holding its code and reads the last line of output as a JSON map of strings (code with only a
 * {@code function.py} gets KubeDiag's runtime: a main.py that calls its {@code handler(context)}); {@code httpServer}
 * POSTs the data map as JSON from here (so 127.0.0.1 is this host). Every process runs in its own process group,
 * killed at the timeout. Unlike KubeDiag, a script that exits non-zero fails the operation (so a check can fail a
 * path); its output is kept either way under {@code operation.<resultKey>.output}.
 */
public final class OperationRunner {
    static final int MAX_OUTPUT = 1 << 20;
    static final int MAX_HTTP_BODY = 2 << 20;

    private final Path workRoot;
    private HttpClient http;

    public OperationRunner(Path stateDir) {
        this.workRoot = stateDir.resolve("diagnosis/work");
    }

    public OperationOutcome run(OperationRun run) throws InterruptedException {
        Duration timeout = Duration.ofSeconds(Math.max(1, Math.min(run.timeoutSeconds(), 86_400)));
        return switch (run.processor()) {
            case OperationRun.SCRIPT_RUNNER -> script(run, timeout);
            case OperationRun.FUNCTION -> function(run, timeout);
            case OperationRun.HTTP_SERVER -> http(run, timeout);
            default -> new OperationOutcome(false, Map.of(), "unknown processor '" + run.processor()
                    + "' (scriptRunner, function or httpServer)");
        };
    }

    private OperationOutcome script(OperationRun run, Duration timeout) throws InterruptedException {
        if (run.script() == null || run.script().isBlank()) {
            return new OperationOutcome(false, Map.of(), "scriptRunner: the operation has no script");
        }
        Path dir = workRoot.resolve(UUID.randomUUID().toString());
        try {
            Files.createDirectories(dir);
            Path script = dir.resolve("script.sh");
            Files.writeString(script, run.script());
            List<String> command = new ArrayList<>(List.of("/bin/sh", script.toString()));
            for (String key : run.argKeys()) {
                if (run.data().containsKey(key)) {
                    command.add(run.data().get(key));
                }
            }
            Finished finished = start(command, dir, timeout);
            Map<String, String> results = new LinkedHashMap<>();
            String error = finished.error();
            if (run.resultKey() != null && !run.resultKey().isBlank()) {
                results.put("operation." + run.resultKey() + ".output", finished.output());
                if (error != null) {
                    results.put("operation." + run.resultKey() + ".error", error);
                }
            }
            return new OperationOutcome(error == null, results, error == null ? null : "script: " + error + tail(finished.output()));
        } catch (IOException e) {
            return new OperationOutcome(false, Map.of(), "scriptRunner: " + e.getMessage());
        } finally {
            deleteQuietly(dir);
        }
    }

    private OperationOutcome function(OperationRun run, Duration timeout) throws InterruptedException {
        if (run.runtime() != null && !run.runtime().equalsIgnoreCase("python3")) {
            return new OperationOutcome(false, Map.of(), "function: runtime '" + run.runtime() + "' is not supported (python3)");
        }
        if (!run.code().containsKey("main.py") && !run.code().containsKey("function.py")) {
            return new OperationOutcome(false, Map.of(), "function: the code has neither main.py nor function.py (with handler(context))");
        }
        Path python = ProcessGroups.findOnPath("python3");
        String errorKey = "function." + run.operation() + ".error";
        if (python == null) {
            return new OperationOutcome(false, Map.of(errorKey, "python3 is not installed"), "function: python3 is not installed on this host");
        }
        Path dir = workRoot.resolve(UUID.randomUUID().toString());
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, String> file : run.code().entrySet()) {
                if (!file.getKey().matches("[A-Za-z0-9_.-]{1,100}") || file.getKey().startsWith(".")) {
                    return new OperationOutcome(false, Map.of(), "function: '" + file.getKey() + "' is not a plain file name");
                }
                Files.writeString(dir.resolve(file.getKey()), file.getValue());
            }
            if (!run.code().containsKey("main.py")) {
                // KubeDiag's function runtime: function.py's handler(context) gets the data map and returns the results.
                Files.writeString(dir.resolve("main.py"), "import json, sys\nimport function\n"
                        + "print(json.dumps({str(k): str(v) for k, v in (function.handler(json.loads(sys.argv[1])) or {}).items()}))\n");
            }
            Finished finished = start(List.of(python.toString(), "main.py", Json.json().writeValueAsString(run.data())), dir, timeout);
            if (finished.error() != null) {
                return new OperationOutcome(false, Map.of(errorKey, finished.error()), "function: " + finished.error() + tail(finished.output()));
            }
            String last = finished.output().lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
            Map<String, String> results = stringMap(last);
            if (results == null) {
                return new OperationOutcome(false, Map.of(errorKey, "the last line is not a JSON object of strings"),
                        "function: the last line of output is not a JSON object of strings: " + brief(last));
            }
            return new OperationOutcome(true, results, null);
        } catch (IOException e) {
            return new OperationOutcome(false, Map.of(), "function: " + e.getMessage());
        } finally {
            deleteQuietly(dir);
        }
    }

    private OperationOutcome http(OperationRun run, Duration timeout) throws InterruptedException {
        String scheme = run.scheme() == null ? "http" : run.scheme();
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return new OperationOutcome(false, Map.of(), "httpServer: scheme must be either http or https");
        }
        int port = run.port() == null ? 8090 : run.port();
        String address = run.address() == null || run.address().isBlank() ? "127.0.0.1" : run.address();
        String path = run.path() == null || run.path().isBlank() ? "/" : run.path().startsWith("/") ? run.path() : "/" + run.path();
        URI uri;
        try {
            uri = new URI(scheme, null, address, port, path, null, null);
        } catch (java.net.URISyntaxException e) {
            return new OperationOutcome(false, Map.of(), "httpServer: " + e.getMessage());
        }
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(run.data()))).build();
            HttpResponse<InputStream> response = client().send(request, HttpResponse.BodyHandlers.ofInputStream());
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readNBytes(MAX_HTTP_BODY + 1);
            }
            if (body.length > MAX_HTTP_BODY) {
                return new OperationOutcome(false, Map.of(), "httpServer: the answer is over " + MAX_HTTP_BODY + " bytes");
            }
            if (response.statusCode() != 200) {
                return new OperationOutcome(false, Map.of(), "httpServer: " + uri + " answered " + response.statusCode());
            }
            Map<String, String> results = stringMap(new String(body, StandardCharsets.UTF_8));
            return results == null
                    ? new OperationOutcome(false, Map.of(), "httpServer: the answer is not a JSON object of strings")
                    : new OperationOutcome(true, results, null);
        } catch (IOException e) {
            return new OperationOutcome(false, Map.of(), "httpServer: " + uri + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
    }

    private synchronized HttpClient client() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        }
        return http;
    }

    /** A process's combined output and its error (null when it exited 0): "exit status N" or "timed out after N s". */
    private record Finished(String output, String error) {
    }

    private Finished start(List<String> command, Path dir, Duration timeout) throws IOException, InterruptedException {
        Path out = dir.resolve(".output");
        Process process = new ProcessBuilder(ProcessGroups.grouped(command)).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        JobProcesses.started(process);
        boolean done;
        try {
            done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            ProcessGroups.kill(process);
            JobProcesses.ended(process);
        }
        String output;
        try (InputStream in = Files.newInputStream(out)) {
            output = new String(in.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8);
        }
        if (!done) {
            return new Finished(output, "timed out after " + timeout.toSeconds() + " s");
        }
        return new Finished(output, process.exitValue() == 0 ? null : "exit status " + process.exitValue());
    }

    private static Map<String, String> stringMap(String json) {
        try {
            if (Json.json().readValue(json, Object.class) instanceof Map<?, ?> map
                    && map.values().stream().allMatch(v -> v instanceof String)) {
                Map<String, String> results = new LinkedHashMap<>();
                map.forEach((k, v) -> results.put(String.valueOf(k), (String) v));
                return results;
            }
        } catch (IOException e) {
            // not JSON
        }
        return null;
    }

    private static String tail(String output) {
        String text = output.strip();
        return text.isEmpty() ? "" : ": " + brief(text.lines().reduce((a, b) -> b).orElse(""));
    }

    private static String brief(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }

    private static void deleteQuietly(Path dir) {
        try {
            DurableFiles.deleteTree(dir);
        } catch (IOException ignored) {
            // a leftover working folder is removed with the next one
        }
    }
}

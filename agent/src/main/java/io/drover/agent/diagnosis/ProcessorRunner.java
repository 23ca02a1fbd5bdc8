package io.drover.agent.diagnosis;

import io.drover.agent.disk.DurableFiles;
import io.drover.agent.jobs.JobProcesses;
import io.drover.agent.plans.ProcessGroups;
import io.drover.model.Json;
import io.drover.model.agentapi.AgentResult.OperationOutcome;
import io.drover.model.agentapi.OperationRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one diagnosis operation on this host, as KubeDiag's executor does: {@code scriptRunner} runs the script with
 * {@code /bin/sh} and the values of its argKeys as arguments; {@code function} runs {@code python3 main.py} in a folder
 * holding its code and reads the last line of output as a JSON map of strings (code with only a {@code function.py}
 * gets KubeDiag's runtime: a main.py that calls its {@code handler(context)}); {@code httpServer} POSTs the data map as
 * JSON from here (so 127.0.0.1 is this host) and the whole exchange, body included, must end within the timeout.
 * Scripts and functions read the data map as JSON on standard input and in the file named by {@code $DROVER_DATA}:
 * never on the command line, where Linux caps one argument at 128 KiB and the map carries every earlier result.
 * Every process runs in its own process group, killed at the timeout. Unlike KubeDiag, a script that exits non-zero
 * fails the operation (so a check can fail a path); its output is kept either way under
 * {@code operation.<resultKey>.output}, with a marker when it was cut at {@link #MAX_OUTPUT} bytes.
 */
public final class ProcessorRunner {
    static final int MAX_OUTPUT = 1 << 20;
    static final int MAX_HTTP_BODY = 2 << 20;
    /** Linux's MAX_ARG_STRLEN (128 KiB with the terminating NUL): one argument longer fails the exec with E2BIG. */
    static final int MAX_ARGUMENT = (128 << 10) - 1;
    /** All argKeys' values together, well under the kernel's total for arguments and environment. */
    static final int MAX_ARGUMENTS = 1 << 20;
    static final String DATA_FILE = ".data.json";
    /** An operation's folder: its script, code, data and output are the owner's alone, as the map may hold secrets. */
    private static final java.nio.file.attribute.FileAttribute<?> OWNER_ONLY = java.nio.file.attribute.PosixFilePermissions
            .asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));

    private final Path workRoot;
    private HttpClient http;

    public ProcessorRunner(Path stateDir) {
        this.workRoot = stateDir.resolve("diagnosis/work");
    }

    public OperationOutcome run(OperationRequest run) throws InterruptedException {
        Duration timeout = Duration.ofSeconds(Math.max(1, Math.min(run.timeoutSeconds(), 86_400)));
        return switch (run.processor()) {
            case OperationRequest.SCRIPT_RUNNER -> script(run, timeout);
            case OperationRequest.FUNCTION -> function(run, timeout);
            case OperationRequest.HTTP_SERVER -> http(run, timeout);
            default -> new OperationOutcome(false, Map.of(), "unknown processor '" + run.processor()
                    + "' (scriptRunner, function or httpServer)");
        };
    }

    private OperationOutcome script(OperationRequest run, Duration timeout) throws InterruptedException {
        if (run.script() == null || run.script().isBlank()) {
            return new OperationOutcome(false, Map.of(), "scriptRunner: the operation has no script");
        }
        Path dir = workRoot.resolve(UUID.randomUUID().toString());
        try {
            Files.createDirectories(dir, OWNER_ONLY);
            Path script = dir.resolve("script.sh");
            Files.writeString(script, run.script());
            List<String> command = new ArrayList<>(List.of("/bin/sh", script.toString()));
            String refused = arguments(run, command);
            if (refused != null) {
                return new OperationOutcome(false, Map.of(), "scriptRunner: " + refused);
            }
            Finished finished = start(command, dir, run.data(), timeout);
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

    private OperationOutcome function(OperationRequest run, Duration timeout) throws InterruptedException {
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
            Files.createDirectories(dir, OWNER_ONLY);
            for (Map.Entry<String, String> file : run.code().entrySet()) {
                if (!file.getKey().matches("[A-Za-z0-9_.-]{1,100}") || file.getKey().startsWith(".")) {
                    return new OperationOutcome(false, Map.of(), "function: '" + file.getKey() + "' is not a plain file name");
                }
                Files.writeString(dir.resolve(file.getKey()), file.getValue());
            }
            if (!run.code().containsKey("main.py")) {
                // KubeDiag's function runtime: function.py's handler(context) gets the data map and returns the results.
                Files.writeString(dir.resolve("main.py"), "import json, sys\nimport function\n"
                        + "print(json.dumps({str(k): str(v) for k, v in (function.handler(json.load(sys.stdin)) or {}).items()}))\n");
            }
            Finished finished = start(List.of(python.toString(), "main.py"), dir, run.data(), timeout);
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

    private OperationOutcome http(OperationRequest run, Duration timeout) throws InterruptedException {
        String scheme = run.scheme() == null ? "http" : run.scheme();
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return new OperationOutcome(false, Map.of(), "httpServer: scheme must be either http or https");
        }
        if (run.address() == null || run.address().isBlank()) {
            // Applied Operations always have one now; one stored before that rule is refused here, not sent to a port
            // where KubeDiag's agent would serve built-in processors and Drover's serves none.
            return new OperationOutcome(false, Map.of(), "httpServer: the operation has no address (spec.processor.httpServer.address);"
                    + " Drover's agent serves no built-in processors on 127.0.0.1:8090");
        }
        int port = run.port() == null ? 8090 : run.port();
        String path = run.path() == null || run.path().isBlank() ? "/" : run.path().startsWith("/") ? run.path() : "/" + run.path();
        URI uri;
        try {
            uri = new URI(scheme, null, run.address(), port, path, null, null);
        } catch (java.net.URISyntaxException e) {
            return new OperationOutcome(false, Map.of(), "httpServer: " + e.getMessage());
        }
        CompletableFuture<HttpResponse<byte[]>> exchange;
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(Json.json().writeValueAsString(run.data()))).build();
            exchange = client().sendAsync(request, info -> new BoundedBody(MAX_HTTP_BODY));
        } catch (IOException e) {
            return new OperationOutcome(false, Map.of(), "httpServer: " + e.getMessage());
        }
        HttpResponse<byte[]> response;
        try {
            // The request's own timeout ends at the response headers: this one covers the body too.
            response = exchange.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return new OperationOutcome(false, Map.of(), "httpServer: " + uri + " did not answer in full within " + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof IOException io && io.getCause() instanceof BoundedBody.TooLarge ? io.getCause() : e.getCause();
            if (cause instanceof BoundedBody.TooLarge) {
                return new OperationOutcome(false, Map.of(), "httpServer: the answer is over " + MAX_HTTP_BODY + " bytes");
            }
            if (cause instanceof java.net.http.HttpTimeoutException) {
                return new OperationOutcome(false, Map.of(), "httpServer: " + uri + " did not answer in full within " + timeout.toSeconds() + " s");
            }
            return new OperationOutcome(false, Map.of(), "httpServer: " + uri + ": "
                    + (cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage()));
        }
        if (response.statusCode() != 200) {
            return new OperationOutcome(false, Map.of(), "httpServer: " + uri + " answered " + response.statusCode());
        }
        Map<String, String> results = stringMap(new String(response.body(), StandardCharsets.UTF_8));
        return results == null
                ? new OperationOutcome(false, Map.of(), "httpServer: the answer is not a JSON object of strings")
                : new OperationOutcome(true, results, null);
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

    /**
     * Adds the values of the run's argKeys (missing keys skipped, as KubeDiag) to the command; an error naming the key
     * and the limit when a value could not be passed as an argument, before anything runs.
     */
    static String arguments(OperationRequest run, List<String> command) {
        long total = 0;
        for (String key : run.argKeys()) {
            String value = run.data().get(key);
            if (value == null) {
                continue;
            }
            if (value.indexOf('\0') >= 0) {
                return "the value of argKey '" + key + "' contains a NUL character, which no argument can carry (read it from $DROVER_DATA)";
            }
            int bytes = value.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_ARGUMENT) {
                return "the value of argKey '" + key + "' is " + bytes + " bytes, over the limit of " + MAX_ARGUMENT
                        + " bytes for one argument (read it from $DROVER_DATA or standard input instead)";
            }
            total += bytes;
            if (total > MAX_ARGUMENTS) {
                return "the values of the argKeys up to '" + key + "' are " + total + " bytes, over the limit of " + MAX_ARGUMENTS
                        + " bytes for all arguments (read them from $DROVER_DATA or standard input instead)";
            }
            command.add(value);
        }
        return null;
    }

    private Finished start(List<String> command, Path dir, Map<String, String> data, Duration timeout) throws IOException, InterruptedException {
        Path out = dir.resolve(".output");
        Path input = dir.resolve(DATA_FILE);
        // Owner-only: the map may carry what a parameter or an earlier result should not show other local users
        // (on the command line, as before, every user could read it in /proc).
        Files.createFile(input, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.write(input, Json.json().writeValueAsBytes(data));
        ProcessBuilder builder = new ProcessBuilder(ProcessGroups.grouped(command)).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).redirectInput(input.toFile());
        builder.environment().put("DROVER_DATA", input.toString());
        Process process = builder.start();
        JobProcesses.started(process);
        boolean done;
        try {
            done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            ProcessGroups.kill(process);
            JobProcesses.ended(process);
        }
        if (!Files.isRegularFile(out, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // A FIFO would block the read forever, a link to /dev/zero feed it; the script swapped what it was given.
            return new Finished("", "its output file .output is not a regular file any more");
        }
        String output;
        long size = Files.size(out);
        try (InputStream in = Files.newInputStream(out, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            output = new String(in.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8);
        }
        if (size > MAX_OUTPUT) {
            output += "\n" + truncated(size);
        }
        if (!done) {
            return new Finished(output, "timed out after " + timeout.toSeconds() + " s");
        }
        return new Finished(output, process.exitValue() == 0 ? null : "exit status " + process.exitValue());
    }

    /** The line that ends an output cut at {@link #MAX_OUTPUT} bytes. */
    static String truncated(long size) {
        return "[drover: output truncated to its first " + MAX_OUTPUT + " of " + size + " bytes]";
    }

    /** Collects a response body up to a size, failing with {@link TooLarge} (and cancelling the exchange) beyond it. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        static final class TooLarge extends IOException {
            TooLarge() {
                super("the answer is too large");
            }
        }

        private final int limit;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private Flow.Subscription subscription;

        BoundedBody(int limit) {
            this.limit = limit;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                if (body.isDone()) {
                    return;
                }
                if (bytes.size() + (long) buffer.remaining() > limit) {
                    subscription.cancel();
                    body.completeExceptionally(new TooLarge());
                    return;
                }
                byte[] chunk = new byte[buffer.remaining()];
                buffer.get(chunk);
                bytes.writeBytes(chunk);
            }
        }

        @Override
        public void onError(Throwable error) {
            body.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            body.complete(bytes.toByteArray());
        }
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

package io.drover.agent.functions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The functions a job may call, with Salt's names: {@code test.ping}, {@code test.echo}, {@code test.version},
 * {@code grains.items}, {@code grains.item}, {@code cmd.run}. Each returns the value and the retcode.
 */
public final class Functions {
    public static final Duration CMD_TIMEOUT = Duration.ofMinutes(10);
    private static final int MAX_OUTPUT = 1 << 20;

    /** A function's answer. */
    public record Result(Object value, int retcode) {
        static Result ok(Object value) {
            return new Result(value, 0);
        }
    }

    private final Map<String, Object> grains;
    private final String version;
    private final Path workDir;

    public Functions(Map<String, Object> grains, String version, Path workDir) {
        this.grains = Map.copyOf(grains);
        this.version = version;
        this.workDir = workDir;
    }

    public Result call(String fun, List<?> args) {
        List<Object> positional = args.stream().filter(a -> !(a instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("__kwarg__"))))
                .map(a -> (Object) a).toList();
        return switch (fun) {
            case "test.ping" -> Result.ok(true);
            case "test.echo" -> Result.ok(positional.isEmpty() ? "" : String.valueOf(positional.getFirst()));
            case "test.version" -> Result.ok(version);
            case "grains.items" -> Result.ok(grains);
            case "grains.item" -> {
                Map<String, Object> picked = new LinkedHashMap<>();
                positional.forEach(k -> picked.put(String.valueOf(k), grains.get(String.valueOf(k))));
                yield Result.ok(picked);
            }
            case "cmd.run" -> positional.isEmpty() ? new Result("cmd.run needs a command", 1)
                    : run(String.valueOf(positional.getFirst()));
            default -> new Result("'" + fun + "' is not available on this agent", 254);
        };
    }

    private Result run(String command) {
        try {
            Process process = new ProcessBuilder("/bin/sh", "-c", command).directory(workDir.toFile())
                    .redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readNBytes(MAX_OUTPUT);
            if (!process.waitFor(CMD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result("timed out after " + CMD_TIMEOUT.toSeconds() + " s", 124);
            }
            String text = new String(output, StandardCharsets.UTF_8);
            return new Result(text.endsWith("\n") ? text.substring(0, text.length() - 1) : text, process.exitValue());
        } catch (IOException e) {
            return new Result("cannot run: " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result("interrupted", 1);
        }
    }
}

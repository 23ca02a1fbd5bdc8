package io.drover.agent.supervisor;

import io.drover.model.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GSE-style process supervision. Registrations are kept in {@code <state>/procs/<name>.json}, so an agent restart
 * re-adopts its processes from their pid files. A delegated process that dies is started again, with a backoff
 * from 1 s doubling to 60 s (reset once it stays up for a minute).
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
    public static final List<String> OPS = List.of("START", "STOP", "RESTART", "RELOAD", "QUERY", "DELEGATE", "UNDELEGATE");
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    /** A start command still running after this long is taken to be the process itself. */
    static final Duration FOREGROUND_AFTER = Duration.ofSeconds(3);

    private final Path dir;
    private final Path root;
    private final Map<String, ProcessSpec> specs = new ConcurrentHashMap<>();
    private final Map<String, Backoff> backoffs = new ConcurrentHashMap<>();
    private final Thread watcher;
    private volatile boolean running = true;

    private static final class Backoff {
        long delayMs = 1000;
        long notBefore;
        long upSince;
    }

    public Supervisor(Path stateDir, Path root) {
        this.dir = stateDir.resolve("procs");
        this.root = root.toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                    ProcessSpec spec = Json.json().readValue(f.toFile(), ProcessSpec.class);
                    specs.put(spec.name(), spec);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the registered processes in " + dir, e);
        }
        this.watcher = Thread.ofPlatform().name("supervisor").daemon().start(this::watch);
    }

    public void register(ProcessSpec spec) throws IOException {
        Path tmp = dir.resolve(spec.name() + ".json.tmp");
        Files.writeString(tmp, Json.json().writeValueAsString(spec));
        Files.move(tmp, dir.resolve(spec.name() + ".json"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        specs.put(spec.name(), spec);
    }

    public boolean unregister(String name) throws IOException {
        backoffs.remove(name);
        Files.deleteIfExists(dir.resolve(name + ".json"));
        return specs.remove(name) != null;
    }

    public Optional<ProcessSpec> spec(String name) {
        return Optional.ofNullable(specs.get(name));
    }

    /** Runs one operation; the answer always has {@code status} (RUNNING, TERMINATED or UNREGISTER) and {@code pid}. */
    public Map<String, Object> operate(String name, String op) throws IOException, InterruptedException {
        ProcessSpec spec = specs.get(name);
        if (spec == null) {
            return status("UNREGISTER", null, null);
        }
        switch (op) {
            case "START" -> start(spec);
            case "STOP" -> stop(spec);
            case "RESTART" -> {
                if (spec.restartCmd() != null && !spec.restartCmd().isBlank()) {
                    run(spec, spec.restartCmd());
                } else {
                    stop(spec);
                    start(spec);
                }
            }
            case "RELOAD" -> {
                if (spec.reloadCmd() != null && !spec.reloadCmd().isBlank()) {
                    run(spec, spec.reloadCmd());
                } else {
                    pid(spec).ifPresent(pid -> signal(pid, "HUP"));
                }
            }
            case "DELEGATE" -> register(spec.withDelegate(true));
            case "UNDELEGATE" -> register(spec.withDelegate(false));
            case "QUERY" -> {
            }
            default -> throw new IllegalArgumentException("unknown operation '" + op + "' (" + String.join(", ", OPS) + ")");
        }
        return query(specs.get(name));
    }

    private Map<String, Object> query(ProcessSpec spec) throws IOException, InterruptedException {
        Optional<Long> pid = pid(spec);
        String version = null;
        if (pid.isPresent() && spec.versionCmd() != null && !spec.versionCmd().isBlank()) {
            version = run(spec, spec.versionCmd()).output().strip();
        }
        Map<String, Object> out = status(pid.isPresent() ? "RUNNING" : "TERMINATED", pid.orElse(null), version);
        out.put("delegate", spec.delegate());
        return out;
    }

    private static Map<String, Object> status(String status, Long pid, String version) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", status);
        out.put("pid", pid);
        out.put("version", version);
        return out;
    }

    /** The live pid from the pid file, if the file names a running process. */
    public Optional<Long> pid(ProcessSpec spec) {
        Path file = under(spec.pidPath());
        try {
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            long pid = Long.parseLong(Files.readString(file).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::pid);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private void start(ProcessSpec spec) throws IOException, InterruptedException {
        if (pid(spec).isPresent()) {
            return;
        }
        Path setup = under(spec.setupPath());
        Files.createDirectories(setup);
        Process process = new ProcessBuilder("/bin/sh", "-c", spec.startCmd()).directory(setup.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(setup.resolve(spec.name() + ".out").toFile()))
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(FOREGROUND_AFTER.toMillis(), TimeUnit.MILLISECONDS)) {
            // A start command that keeps running is the process: record its pid if it wrote none.
            if (pid(spec).isEmpty()) {
                writePid(spec, process.pid());
            }
        } else if (process.exitValue() != 0) {
            throw new IOException("start command of " + spec.name() + " exited with " + process.exitValue());
        }
    }

    private void stop(ProcessSpec spec) throws IOException, InterruptedException {
        Optional<Long> pid = pid(spec);
        if (spec.stopCmd() != null && !spec.stopCmd().isBlank()) {
            run(spec, spec.stopCmd());
        } else if (pid.isPresent()) {
            ProcessHandle handle = ProcessHandle.of(pid.get()).orElse(null);
            if (handle != null) {
                handle.descendants().forEach(ProcessHandle::destroy);
                handle.destroy();
                try {
                    handle.onExit().get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    handle.destroyForcibly();
                }
            }
        }
        Files.deleteIfExists(under(spec.pidPath()));
    }

    private void writePid(ProcessSpec spec, long pid) throws IOException {
        Path file = under(spec.pidPath());
        Files.createDirectories(file.getParent());
        Files.writeString(file, pid + "\n");
    }

    /** A control command's exit code and output. */
    public record CommandResult(int exit, String output) {
    }

    private CommandResult run(ProcessSpec spec, String command) throws IOException, InterruptedException {
        Path setup = under(spec.setupPath());
        Process process = new ProcessBuilder("/bin/sh", "-c", command).directory(setup.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readNBytes(64 * 1024);
        if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("'" + command + "' of " + spec.name() + " timed out after " + COMMAND_TIMEOUT.toSeconds() + " s");
        }
        return new CommandResult(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static void signal(long pid, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            log.warn("cannot send SIG{} to {}", signal, pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A spec path resolved under the agent root ("/usr/local/gse" → {@code <root>/usr/local/gse}). */
    public Path under(String path) {
        Path resolved = root.resolve(path.replaceFirst("^/+", "")).normalize();
        if (!resolved.startsWith(root)) {
            throw new IllegalArgumentException("path '" + path + "' leaves the agent root");
        }
        return resolved;
    }

    private void watch() {
        while (running) {
            long now = System.currentTimeMillis();
            for (ProcessSpec spec : specs.values()) {
                if (!spec.delegate()) {
                    continue;
                }
                Backoff b = backoffs.computeIfAbsent(spec.name(), n -> new Backoff());
                if (pid(spec).isPresent()) {
                    if (b.upSince == 0) {
                        b.upSince = now;
                    } else if (now - b.upSince > 60_000) {
                        b.delayMs = 1000;
                    }
                    continue;
                }
                b.upSince = 0;
                if (now < b.notBefore) {
                    continue;
                }
                try {
                    log.info("delegated process {} is not running; starting it", spec.name());
                    start(spec);
                } catch (IOException | RuntimeException e) {
                    log.warn("cannot start delegated process {}: {}", spec.name(), e.getMessage());
                } catch (InterruptedException e) {
                    return;
                }
                b.notBefore = System.currentTimeMillis() + b.delayMs;
                b.delayMs = Math.min(b.delayMs * 2, 60_000);
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        watcher.interrupt();
    }
}

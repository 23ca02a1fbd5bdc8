package io.drover.agent.supervisor;

import io.drover.model.agentapi.ProcessSpec;
import io.drover.model.agentapi.ProcessStatus;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Controls one process as its spec says: start, stop, restart, reload and query it, and find its live pid from its
 * pid file. Commands run with {@code /bin/sh -c} in the setup path, with a timeout; when the agent runs as root and
 * the spec names another {@code user}, they run as that user through {@code runuser}. Paths of a spec are resolved
 * under the agent root and may not leave it. Holds no state of its own: whether a process is registered or wanted
 * running is the {@link Supervisor}'s.
 */
final class ProcessControl {
    /** A start command still running after this long is taken to be the process itself (it did not daemonize). */
    static final Duration FOREGROUND_AFTER = Duration.ofSeconds(3);
    private static final int MAX_OUTPUT = 64 * 1024;
    private static final File NO_INPUT = new File("/dev/null");

    private final Path root;
    /** Where the start commands' output goes ({@code <name>.out}). */
    private final Path outputDir;
    private final Supervisor.Options options;
    private final Clock clock;
    private final boolean asRoot;

    ProcessControl(Path root, Path outputDir, Supervisor.Options options, Clock clock) {
        this.root = root.toAbsolutePath().normalize();
        this.outputDir = outputDir;
        this.options = options;
        this.clock = clock;
        this.asRoot = isRoot();
    }

    Map<String, Object> query(ProcessSpec spec) throws IOException, InterruptedException {
        Optional<Long> pid = pid(spec);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", (pid.isPresent() ? ProcessStatus.RUNNING : ProcessStatus.TERMINATED).name());
        out.put("pid", pid.orElse(null));
        String version = null;
        if (pid.isPresent() && present(spec.versionCmd())) {
            Shell.Outcome v = run(spec, spec.versionCmd());
            version = v.exit() == 0 ? v.output().strip() : null;
        }
        out.put("version", version);
        out.put("delegate", spec.delegate());
        if (present(spec.healthCmd())) {
            out.put("healthy", pid.isPresent() && run(spec, spec.healthCmd()).exit() == 0);
        }
        return out;
    }

    void start(ProcessSpec spec) throws IOException, InterruptedException {
        if (pid(spec).isPresent()) {
            return;
        }
        Path setup = setupDir(spec);
        Path pidFile = under(spec.pidPath());
        Files.createDirectories(pidFile.getParent());
        // The start command's output goes to a file: a daemon it leaves behind may keep writing to it.
        Path output = outputDir.resolve(spec.name() + ".out");
        Process process = new ProcessBuilder(command(spec, spec.startCmd())).directory(setup.toFile())
                .redirectInput(NO_INPUT).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!process.waitFor(FOREGROUND_AFTER.toMillis(), TimeUnit.MILLISECONDS)) {
            if (pid(spec).isEmpty()) {
                writePid(pidFile, process.pid());
            }
            return;
        }
        if (process.exitValue() != 0) {
            throw new IOException("start_cmd of '" + spec.name() + "' exited with " + process.exitValue() + tail(output));
        }
        if (!awaitRunning(spec, options.startCheck())) {
            throw new IOException("start_cmd of '" + spec.name() + "' succeeded, but " + spec.pidPath()
                    + " names no running process after " + options.startCheck().toSeconds() + " s" + tail(output));
        }
    }

    void stop(ProcessSpec spec) throws IOException, InterruptedException {
        Optional<Long> before = pid(spec);
        String failure = "";
        if (present(spec.stopCmd())) {
            Shell.Outcome outcome = run(spec, spec.stopCmd());
            if (outcome.exit() != 0) {
                failure = " (stop_cmd exited with " + outcome.exit() + ": " + outcome.text() + ")";
            }
            if (before.isEmpty() || awaitExit(before.get(), options.stopGrace())) {
                removePidFile(spec, before);
                return;
            }
        }
        if (before.isEmpty()) {
            return;
        }
        long pid = before.get();
        ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
        if (handle != null) {
            handle.descendants().forEach(ProcessHandle::destroy);
            handle.destroy();
            if (!awaitExit(pid, options.stopGrace())) {
                handle.descendants().forEach(ProcessHandle::destroyForcibly);
                handle.destroyForcibly();
                if (!awaitExit(pid, Duration.ofSeconds(5))) {
                    throw new IOException("process '" + spec.name() + "' (pid " + pid + ") did not stop" + failure);
                }
            }
        }
        removePidFile(spec, before);
    }

    void restart(ProcessSpec spec) throws IOException, InterruptedException {
        if (!present(spec.restartCmd())) {
            stop(spec);
            start(spec);
            return;
        }
        setupDir(spec);
        Optional<Long> before = pid(spec);
        Shell.Outcome outcome = run(spec, spec.restartCmd());
        if (outcome.exit() != 0) {
            throw new IOException("restart_cmd of '" + spec.name() + "' exited with " + outcome.exit() + ": " + outcome.text());
        }
        // A restart_cmd that signals the old process and starts the new one in the background returns before the old
        // one has exited or the new one has written its pid: give it a moment to show a new pid (one that keeps its
        // pid on restart is accepted once the wait ends).
        long deadline = clock.millis() + options.startCheck().toMillis();
        while (before.isPresent() && pid(spec).equals(before) && clock.millis() < deadline) {
            Thread.sleep(50);
        }
        if (!awaitRunning(spec, options.startCheck())) {
            throw new IOException("restart_cmd of '" + spec.name() + "' succeeded, but " + spec.pidPath()
                    + " names no running process after " + options.startCheck().toSeconds() + " s");
        }
    }

    /** Without a reload command, RELOAD restarts (NodeMan sends {@code reload_cmd = reload or restart}). */
    void reload(ProcessSpec spec) throws IOException, InterruptedException {
        if (pid(spec).isEmpty()) {
            throw new IOException("process '" + spec.name() + "' is not running; RELOAD needs a running process");
        }
        if (!present(spec.reloadCmd())) {
            restart(spec);
            return;
        }
        Shell.Outcome outcome = run(spec, spec.reloadCmd());
        if (outcome.exit() != 0) {
            throw new IOException("reload_cmd of '" + spec.name() + "' exited with " + outcome.exit() + ": " + outcome.text());
        }
        if (pid(spec).isEmpty()) {
            throw new IOException("process '" + spec.name() + "' is no longer running after reload_cmd");
        }
    }

    /** The live pid from the pid file, if the file names a running process. */
    Optional<Long> pid(ProcessSpec spec) {
        try (InputStream in = Files.newInputStream(under(spec.pidPath()))) {
            String text = new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip().split("\\s+", 2)[0];
            long pid = Long.parseLong(text);
            // pid 1 or the agent itself in a stale or hostile pid file must never be signalled
            if (pid <= 1 || pid == ProcessHandle.current().pid()) {
                return Optional.empty();
            }
            return alive(pid) ? Optional.of(pid) : Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Alive and not a zombie: a killed orphan stays a zombie until an init reaps it, which some containers never do. */
    static boolean alive(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private boolean awaitRunning(ProcessSpec spec, Duration max) throws InterruptedException {
        long deadline = clock.millis() + max.toMillis();
        while (pid(spec).isEmpty()) {
            if (clock.millis() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    private boolean awaitExit(long pid, Duration max) throws InterruptedException {
        long deadline = clock.millis() + max.toMillis();
        while (alive(pid)) {
            if (clock.millis() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    /** Removes the pid file if it still names the process that was stopped (a new one may have written its own). */
    private void removePidFile(ProcessSpec spec, Optional<Long> stopped) throws IOException {
        Path file = under(spec.pidPath());
        if (stopped.isEmpty() || !Files.isRegularFile(file)) {
            return;
        }
        try (InputStream in = Files.newInputStream(file)) {
            String text = new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip();
            if (text.equals(String.valueOf(stopped.get()))) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static void writePid(Path file, long pid) throws IOException {
        Files.writeString(file, pid + "\n");
    }

    private Path setupDir(ProcessSpec spec) throws IOException {
        Path setup = under(spec.setupPath());
        if (!Files.isDirectory(setup)) {
            throw new IOException("setup_path " + spec.setupPath() + " of '" + spec.name() + "' is not a directory");
        }
        return setup;
    }

    private Shell.Outcome run(ProcessSpec spec, String command) throws IOException, InterruptedException {
        Shell.Outcome outcome = Shell.run(command(spec, command), setupDir(spec), options.commandTimeout(), MAX_OUTPUT);
        if (outcome.timedOut()) {
            throw new IOException("'" + command + "' of '" + spec.name() + "' timed out after "
                    + options.commandTimeout().toSeconds() + " s");
        }
        return outcome;
    }

    List<String> command(ProcessSpec spec, String command) {
        List<String> argv = new ArrayList<>();
        if (asRoot && present(spec.user()) && !spec.user().equals("root")) {
            argv.addAll(List.of("runuser", "-u", spec.user(), "--"));
        }
        argv.addAll(List.of("/bin/sh", "-c", command));
        return argv;
    }

    private static String tail(Path output) {
        try {
            String text = Shell.head(output, MAX_OUTPUT).strip();
            return text.isEmpty() ? "" : ": " + text;
        } catch (IOException e) {
            return "";
        }
    }

    /** Refuses a spec whose setup path leaves the agent root or whose pid file would be the root itself. */
    void checkPaths(ProcessSpec spec) {
        under(spec.setupPath());
        if (under(spec.pidPath()).equals(root)) {
            throw new IllegalArgumentException("pid_path may not be the agent root");
        }
    }

    /** A spec path resolved under the agent root ("/usr/local/gse" → {@code <root>/usr/local/gse}). */
    Path under(String path) {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("empty path");
        }
        Path resolved = root.resolve(path.replaceFirst("^/+", "")).normalize();
        if (!resolved.startsWith(root)) {
            throw new IllegalArgumentException("path '" + path + "' leaves the agent root");
        }
        return resolved;
    }

    static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}

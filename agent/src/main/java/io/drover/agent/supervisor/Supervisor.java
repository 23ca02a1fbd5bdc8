package io.drover.agent.supervisor;

import io.drover.model.agentapi.ProcessSpec;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GSE-style process supervision. Registrations are kept in {@code <state>/procs/<name>.json} (written to a temporary
 * file, then renamed), so an agent restart re-adopts its processes from their pid files; a process is alive when its
 * pid file names a live, non-zombie process.
 *
 * <p>A delegated process that the operator started (START or RESTART, and no STOP since) and that dies is started
 * again by a watcher thread, after a backoff from 1 s doubling to 60 s, reset once it stays up for a minute. STOP
 * therefore also holds the watcher off until the next START, so an uninstall (STOP, then remove the directory) is not
 * undone.
 *
 * <p>Commands run with {@code /bin/sh -c} in the setup path, with a timeout. When the agent runs as root and the spec
 * names another {@code user}, they run as that user through {@code runuser}; an agent that is not root cannot switch
 * users, and runs them as itself.
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
    public static final List<String> OPS = List.of("START", "STOP", "RESTART", "RELOAD", "QUERY", "DELEGATE", "UNDELEGATE");
    /** A start command still running after this long is taken to be the process itself (it did not daemonize). */
    static final Duration FOREGROUND_AFTER = Duration.ofSeconds(3);
    private static final int MAX_OUTPUT = 64 * 1024;
    /** A registration is a spec of a few paths and commands; a larger file is not one the supervisor wrote. */
    private static final long MAX_REGISTRATION_BYTES = 1024 * 1024;
    private static final File NO_INPUT = new File("/dev/null");

    /** Timings; {@link #DEFAULTS} in production, shorter ones in tests. */
    public record Options(Duration commandTimeout, Duration startCheck, Duration stopGrace, Duration firstBackoff,
                          Duration maxBackoff, Duration stableAfter, Duration watchEvery) {
        public static final Options DEFAULTS = new Options(Duration.ofSeconds(60), Duration.ofSeconds(10),
                Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(60),
                Duration.ofMillis(500));
    }

    /** What is kept on disk: the spec, and whether the operator wants the process running (START/RESTART vs STOP). */
    record Registration(ProcessSpec spec, boolean started) {
    }

    /** One registered process; operations hold its lock, the watcher only tries it. */
    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        volatile Registration registration;
        long delayMs;
        volatile long restartAtMs;
        long upSinceMs;

        Entry(Registration registration, long delayMs) {
            this.registration = registration;
            this.delayMs = delayMs;
        }
    }

    private final Path dir;
    private final Path root;
    private final Options options;
    private final boolean asRoot;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** Started with the first registration: an agent that supervises nothing keeps no thread (and its stack) for it. */
    private Thread watcher;
    private final Clock clock;
    private final Consumer<String> onDied;
    private volatile boolean running = true;

    public Supervisor(Path stateDir, Path root, Consumer<String> onDied) {
        this(stateDir, root, Options.DEFAULTS, Clock.systemUTC(), onDied);
    }

    public Supervisor(Path stateDir, Path root, Options options, Clock clock) {
        this(stateDir, root, options, clock, name -> { });
    }

    /**
     * Loads the registrations (skipping unreadable ones, with a warning) and starts the watcher; {@code onDied} hears
     * of each delegated process the watcher finds dead (before it starts it again).
     */
    public Supervisor(Path stateDir, Path root, Options options, Clock clock, Consumer<String> onDied) {
        this.clock = clock;
        this.onDied = onDied;
        this.dir = stateDir.resolve("procs");
        this.root = root.toAbsolutePath().normalize();
        this.options = options;
        this.asRoot = isRoot();
        try {
            Files.createDirectories(dir);
            List<Path> found = new ArrayList<>(); // a directory stream, not Files.list: fewer classes in an idle agent
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    found.add(f);
                }
            } catch (DirectoryIteratorException e) {
                throw e.getCause();
            }
            for (Path f : found) {
                String file = f.getFileName().toString();
                if (file.endsWith(".tmp")) {
                    Files.deleteIfExists(f);
                } else if (file.endsWith(".json")) {
                    load(f, file.substring(0, file.length() - ".json".length()));
                }
            }
        } catch (IOException e) {
            log.warn("cannot read the registered processes in {}: {}", dir, e.toString());
        }
        if (!entries.isEmpty()) {
            startWatcher();
        }
    }

    /** Starts the watcher if it is not running yet (and the supervisor is not closed). */
    private synchronized void startWatcher() {
        if (watcher == null && running) {
            watcher = Thread.ofPlatform().name("supervisor").daemon().start(this::watch);
        }
    }

    private void load(Path file, String name) {
        try {
            if (Files.size(file) > MAX_REGISTRATION_BYTES) {
                throw new IllegalArgumentException("larger than " + MAX_REGISTRATION_BYTES + " bytes");
            }
            Registration r = RegistrationFile.read(Files.readString(file));
            check(r.spec());
            if (!r.spec().name().equals(name)) {
                throw new IllegalArgumentException("it registers '" + r.spec().name() + "'");
            }
            entries.put(name, new Entry(r, options.firstBackoff().toMillis()));
        } catch (IOException | RuntimeException e) {
            log.warn("ignoring the unreadable process registration {}: {}", file, e.getMessage());
        }
    }

    /** Registers a process, or replaces its spec (keeping whether it was started). */
    public void register(ProcessSpec spec) throws IOException {
        check(spec);
        Entry fresh = new Entry(new Registration(spec, false), options.firstBackoff().toMillis());
        Entry entry = entries.computeIfAbsent(spec.name(), n -> fresh);
        entry.lock.lock();
        try {
            Registration updated = new Registration(spec, entry != fresh && entry.registration.started());
            try {
                save(updated);
            } catch (IOException | RuntimeException e) {
                if (entry == fresh) {
                    entries.remove(spec.name(), fresh);
                }
                throw e;
            }
            entry.registration = updated;
            entries.put(spec.name(), entry);
        } finally {
            entry.lock.unlock();
        }
        startWatcher();
    }

    /** Forgets a process (it keeps running, unsupervised); false when it was not registered. */
    public boolean unregister(String name) throws IOException {
        checkName(name);
        Entry entry = entries.get(name);
        if (entry == null) {
            return false;
        }
        entry.lock.lock();
        try {
            Files.deleteIfExists(dir.resolve(name + ".json"));
            return entries.remove(name, entry);
        } finally {
            entry.lock.unlock();
        }
    }

    public Optional<ProcessSpec> spec(String name) {
        Entry entry = entries.get(name);
        return entry == null ? Optional.empty() : Optional.of(entry.registration.spec());
    }

    /**
     * Runs one operation and answers the state after it: {@code status} (RUNNING, TERMINATED, or UNREGISTER for an
     * unknown name, which only QUERY accepts), {@code pid}, {@code version} (the version command's output while
     * running), {@code delegate}, and {@code healthy} when there is a health command. START of a running process and
     * STOP of a stopped one succeed, as in GSE. A command that fails or times out, or a process that is not running
     * when it should be, is an {@link IOException} saying so.
     */
    public Map<String, Object> operate(String name, String op) throws IOException, InterruptedException {
        if (!OPS.contains(op)) {
            throw new IllegalArgumentException("unknown operation '" + op + "' (" + String.join(", ", OPS) + ")");
        }
        checkName(name);
        Entry entry = entries.get(name);
        if (entry == null) {
            if (op.equals("QUERY")) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("status", "UNREGISTER");
                out.put("pid", null);
                out.put("version", null);
                return out;
            }
            throw new IllegalArgumentException("process '" + name + "' is not registered");
        }
        entry.lock.lockInterruptibly();
        try {
            if (entries.get(name) != entry) {
                throw new IllegalArgumentException("process '" + name + "' was unregistered meanwhile");
            }
            switch (op) {
                case "START" -> {
                    mark(entry, true);
                    start(entry.registration.spec());
                }
                case "STOP" -> {
                    mark(entry, false);
                    stop(entry.registration.spec());
                }
                case "RESTART" -> {
                    mark(entry, true);
                    restart(entry.registration.spec());
                }
                case "RELOAD" -> reload(entry.registration.spec());
                case "DELEGATE", "UNDELEGATE" -> {
                    Registration r = entry.registration;
                    Registration updated = new Registration(r.spec().withDelegate(op.equals("DELEGATE")), r.started());
                    save(updated);
                    entry.registration = updated;
                }
                default -> {
                }
            }
            return query(entry.registration.spec());
        } finally {
            entry.lock.unlock();
        }
    }

    private void mark(Entry entry, boolean started) throws IOException {
        Registration r = entry.registration;
        if (r.started() != started) {
            Registration updated = new Registration(r.spec(), started);
            save(updated);
            entry.registration = updated;
        }
        entry.restartAtMs = 0;
        entry.upSinceMs = 0;
        entry.delayMs = options.firstBackoff().toMillis();
    }

    private Map<String, Object> query(ProcessSpec spec) throws IOException, InterruptedException {
        Optional<Long> pid = pid(spec);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", pid.isPresent() ? "RUNNING" : "TERMINATED");
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

    private void start(ProcessSpec spec) throws IOException, InterruptedException {
        if (pid(spec).isPresent()) {
            return;
        }
        Path setup = setupDir(spec);
        Path pidFile = under(spec.pidPath());
        Files.createDirectories(pidFile.getParent());
        // The start command's output goes to a file: a daemon it leaves behind may keep writing to it.
        Path output = dir.resolve(spec.name() + ".out");
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

    private void stop(ProcessSpec spec) throws IOException, InterruptedException {
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

    private void restart(ProcessSpec spec) throws IOException, InterruptedException {
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
    private void reload(ProcessSpec spec) throws IOException, InterruptedException {
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
    public Optional<Long> pid(ProcessSpec spec) {
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

    private void save(Registration registration) throws IOException {
        String name = registration.spec().name();
        Path tmp = Files.createTempFile(dir, name + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(java.nio.ByteBuffer.wrap(RegistrationFile.write(registration)));
                channel.force(true);
            }
            Files.move(tmp, dir.resolve(name + ".json"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** A spec path resolved under the agent root ("/usr/local/gse" → {@code <root>/usr/local/gse}). */
    public Path under(String path) {
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("empty path");
        }
        Path resolved = root.resolve(path.replaceFirst("^/+", "")).normalize();
        if (!resolved.startsWith(root)) {
            throw new IllegalArgumentException("path '" + path + "' leaves the agent root");
        }
        return resolved;
    }

    private void check(ProcessSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("no process spec");
        }
        checkName(spec.name());
        for (String[] field : new String[][] {{"setup_path", spec.setupPath()}, {"pid_path", spec.pidPath()},
                {"start_cmd", spec.startCmd()}}) {
            if (!present(field[1])) {
                throw new IllegalArgumentException("'" + field[0] + "' is required");
            }
        }
        under(spec.setupPath());
        if (under(spec.pidPath()).equals(root)) {
            throw new IllegalArgumentException("pid_path may not be the agent root");
        }
        if (present(spec.user()) && !spec.user().matches("[A-Za-z_][A-Za-z0-9_.-]{0,31}")) {
            throw new IllegalArgumentException("user '" + spec.user() + "' is not a user name");
        }
    }

    private static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")) {
            throw new IllegalArgumentException("process name '" + name
                    + "' must be 1-128 letters, digits, '.', '_' or '-', not starting with '.' or '-'");
        }
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private void watch() {
        while (running) {
            for (Entry entry : entries.values()) {
                try {
                    tend(entry);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    log.warn("cannot start delegated process {}: {}", entry.registration.spec().name(), e.getMessage());
                }
            }
            try {
                Thread.sleep(options.watchEvery().toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Restarts a delegated, started process that died: after a backoff that doubles, and resets once it stays up. */
    private void tend(Entry entry) throws IOException, InterruptedException {
        Registration r = entry.registration;
        if (!r.spec().delegate() || !r.started() || !entry.lock.tryLock()) {
            return;
        }
        try {
            r = entry.registration;
            if (!r.spec().delegate() || !r.started() || entries.get(r.spec().name()) != entry) {
                return;
            }
            long now = clock.millis();
            if (pid(r.spec()).isPresent()) {
                entry.restartAtMs = 0;
                if (entry.upSinceMs == 0) {
                    entry.upSinceMs = now;
                } else if (now - entry.upSinceMs >= options.stableAfter().toMillis()) {
                    entry.delayMs = options.firstBackoff().toMillis();
                }
                return;
            }
            entry.upSinceMs = 0;
            if (entry.restartAtMs == 0) {
                entry.restartAtMs = now + entry.delayMs;
                log.info("delegated process {} is not running; starting it in {} ms", r.spec().name(), entry.delayMs);
                try {
                    onDied.accept(r.spec().name());
                } catch (RuntimeException e) {
                    log.warn("reporting that {} died failed: {}", r.spec().name(), e.toString());
                }
                entry.delayMs = Math.min(entry.delayMs * 2, options.maxBackoff().toMillis());
                return;
            }
            if (now >= entry.restartAtMs) {
                entry.restartAtMs = 0;
                start(r.spec());
            }
        } finally {
            entry.lock.unlock();
        }
    }

    /** When the watcher is due to start a dead delegated process again (clock millis), or 0 when it is not waiting. */
    long restartDueAt(String name) {
        Entry entry = entries.get(name);
        return entry == null ? 0 : entry.restartAtMs;
    }

    /** Stops the watcher; the processes keep running. */
    @Override
    public void close() {
        Thread watcher;
        synchronized (this) {
            running = false;
            watcher = this.watcher;
        }
        if (watcher == null) {
            return;
        }
        watcher.interrupt();
        try {
            watcher.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

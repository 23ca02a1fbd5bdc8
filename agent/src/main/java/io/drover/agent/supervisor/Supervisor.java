package io.drover.agent.supervisor;

import io.drover.model.agentapi.ProcessSpec;
import io.drover.model.agentapi.ProcessStatus;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
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
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GSE-style process supervision: which processes are registered and whether the operator wants each running.
 * Registrations are kept in {@code <state>/procs/<name>.json} (written to a temporary file, then renamed), so an agent
 * restart re-adopts its processes from their pid files; a process is alive when its pid file names a live, non-zombie
 * process. Running the commands of a process is {@link ProcessControl}'s.
 *
 * <p>A delegated process that the operator started (START or RESTART, and no STOP since) and that dies is started
 * again by a watcher thread, after a backoff from 1 s doubling to 60 s, reset once it stays up for a minute. STOP
 * therefore also holds the watcher off until the next START, so an uninstall (STOP, then remove the directory) is not
 * undone.
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
    public static final List<String> OPS = List.of("START", "STOP", "RESTART", "RELOAD", "QUERY", "DELEGATE", "UNDELEGATE");
    /** A registration is a spec of a few paths and commands; a larger file is not one the supervisor wrote. */
    private static final long MAX_REGISTRATION_BYTES = 1024 * 1024;

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
    private final Options options;
    private final ProcessControl control;
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
        this.options = options;
        this.control = new ProcessControl(root, dir, options, clock);
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
                out.put("status", ProcessStatus.UNREGISTER.name());
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
                    control.start(entry.registration.spec());
                }
                case "STOP" -> {
                    mark(entry, false);
                    control.stop(entry.registration.spec());
                }
                case "RESTART" -> {
                    mark(entry, true);
                    control.restart(entry.registration.spec());
                }
                case "RELOAD" -> control.reload(entry.registration.spec());
                case "DELEGATE", "UNDELEGATE" -> {
                    Registration r = entry.registration;
                    Registration updated = new Registration(r.spec().withDelegate(op.equals("DELEGATE")), r.started());
                    save(updated);
                    entry.registration = updated;
                }
                default -> {
                }
            }
            return control.query(entry.registration.spec());
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

    private void check(ProcessSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("no process spec");
        }
        checkName(spec.name());
        for (String[] field : new String[][] {{"setup_path", spec.setupPath()}, {"pid_path", spec.pidPath()},
                {"start_cmd", spec.startCmd()}}) {
            if (!ProcessControl.present(field[1])) {
                throw new IllegalArgumentException("'" + field[0] + "' is required");
            }
        }
        control.checkPaths(spec);
        if (ProcessControl.present(spec.user()) && !spec.user().matches("[A-Za-z_][A-Za-z0-9_.-]{0,31}")) {
            throw new IllegalArgumentException("user '" + spec.user() + "' is not a user name");
        }
    }

    private static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")) {
            throw new IllegalArgumentException("process name '" + name
                    + "' must be 1-128 letters, digits, '.', '_' or '-', not starting with '.' or '-'");
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
            if (control.pid(r.spec()).isPresent()) {
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
                control.start(r.spec());
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

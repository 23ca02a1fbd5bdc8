package io.drover.agent.install;

import io.drover.agent.disk.DurableFiles;
import io.drover.agent.functions.AgentUpgrader;
import io.drover.agent.functions.FileSource;
import io.drover.agent.functions.PackageInstaller;
import io.drover.core.agents.AgentPackageName;
import io.drover.model.agentapi.AgentCall.UpgradeAgent;
import io.drover.model.agentapi.AgentResult.UpgradeHandedOver;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code agent.upgrade}: an installed agent upgrades itself with a package from the server's files. It fetches the
 * package (sha256 checked), unpacks it safely to {@code opt/drover-agent/.upgrade-<version>}, checks its VERSION and
 * ARCH, and starts that package's {@code drover-agent upgrade} detached from itself (a session of its own), which
 * restarts the agent and rolls back when the new version does not sign in. Its output goes to
 * {@code var/log/drover-agent/upgrade-<version>.log}; it removes the unpacked package and the lock when it ends.
 *
 * <p>The reply goes before the restart: the upgrader waits {@link #HAND_OVER_SECONDS} before it stops the agent, time
 * enough for the agent to write the job's return to its journal (milliseconds after this returns). A return written
 * but not acknowledged when the agent stops is sent again by the next agent process (it keeps the journal), so the
 * server gets the reply even when the stop comes before the send.
 *
 * <p>One upgrade at a time: {@code var/lib/drover-agent/upgrade.lock} holds the pid of whoever upgrades (this agent
 * while it unpacks, then the upgrader) and when it began; a lock whose process is gone (or whose pid now belongs to a
 * process started after the lock) is taken over. The upgrader removes the lock only while it still names it.
 */
public final class SelfUpgrade implements AgentUpgrader {
    static final int HAND_OVER_SECONDS = 5;
    /** The most an unpacked package may hold (a real one is about 100 MiB). */
    private static final long MAX_BYTES = 512L << 20;
    /** $1 launcher, $2 prefix, $3 package, $4 staged directory, $5 lock, $6 seconds to wait for the sign-in. */
    private static final String SCRIPT = "sleep " + HAND_OVER_SECONDS + "\n"
            + "echo \"$(date -u +%Y-%m-%dT%H:%M:%SZ) $1 upgrade --prefix $2 --package $3 --wait-seconds $6\"\n"
            + "\"$1\" upgrade --prefix \"$2\" --package \"$3\" --wait-seconds \"$6\"\n"
            + "status=$?\n"
            + "rm -rf \"$4\"\n"
            + "read -r owner rest < \"$5\" 2>/dev/null\n"
            + "[ \"$owner\" = \"$$\" ] && rm -f \"$5\"\n"
            + "echo \"$(date -u +%Y-%m-%dT%H:%M:%SZ) upgrade ended with exit status $status\"\n"
            + "exit $status\n";

    private final Path root;
    private final Path home;
    private final String version;
    private final String hostArch;
    private final FileSource files;
    private final java.util.function.IntSupplier jobsRunning;

    /**
     * {@code root}: the agent's root; {@code home}: the package it runs from ({@link AgentHome#fromSystem()}), or
     * null; {@code version}: the version it reports.
     */
    public SelfUpgrade(Path root, Path home, String version, FileSource files, java.util.function.IntSupplier jobsRunning) {
        this.root = root.toAbsolutePath().normalize();
        this.home = home;
        this.version = version;
        this.hostArch = AgentPackage.hostArch(System.getProperty("os.arch", ""));
        this.files = files;
        this.jobsRunning = jobsRunning;
    }

    /** Hands over to the package's installer, or refuses with why; nothing stays on the host after a refusal. */
    @Override
    public synchronized UpgradeHandedOver start(UpgradeAgent call) throws IOException {
        Layout layout = installedLayout();
        int others = jobsRunning.getAsInt() - 1;
        if (others > 0) {
            throw new Refused(others + " other job(s) run on the agent, and the restart would cut them short: upgrade it "
                    + "when they have ended");
        }
        String problem = AgentPackageName.versionProblem(call.version());
        if (problem != null) {
            throw new Refused("version " + problem);
        }
        if (call.version().equals(version)) {
            throw new Refused("drover-agent " + version + " runs already; nothing to upgrade");
        }
        String sha256 = call.sha256().toLowerCase(Locale.ROOT);
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new Refused("sha256 " + AgentPackageName.shown(call.sha256()) + " is not 64 hex digits");
        }
        AgentService.Kind kind = Services.recorded(layout).orElse(AgentService.Kind.NONE);
        if (kind == AgentService.Kind.NONE) {
            throw new Refused("the agent was installed with --service none: its own supervisor restarts it, so upgrade it "
                    + "with 'drover-agent upgrade' and restart it there");
        }
        Path lock = layout.state().resolve("upgrade.lock");
        takeLock(lock, call.version());
        Path staged = layout.opt().resolve(".upgrade-" + call.version());
        boolean handedOver = false;
        try {
            removeLeftovers(layout);
            AgentPackage pkg = stage(call, sha256, staged);
            Path log = layout.logDir().resolve("upgrade-" + call.version() + ".log");
            long pid = launch(layout, pkg, staged, lock, log, call.waitSeconds());
            handedOver = true;
            try {
                writeLock(lock, pid, call.version());
            } catch (IOException e) {
                // the lock still names this agent, which the upgrader stops: it is stale from then on
            }
            return new UpgradeHandedOver(version, call.version(), log.toString());
        } finally {
            if (!handedOver) {
                DurableFiles.deleteTree(staged);
                Files.deleteIfExists(lock);
            }
        }
    }

    /** The installation the agent runs from: {@code home} is {@code <prefix>/opt/drover-agent/versions/<V>}, current. */
    private Layout installedLayout() throws IOException {
        String notInstalled = "this agent does not run from an installed package (drover-agent install)";
        if (home == null) {
            throw new Refused(notInstalled + ": upgrade it the way it was installed");
        }
        Path real;
        try {
            real = home.toRealPath();
        } catch (IOException e) {
            throw new Refused(notInstalled + ": the package it was started from, " + home + ", is gone");
        }
        Path versions = real.getParent();
        Path opt = versions == null ? null : versions.getParent();
        Path optParent = opt == null ? null : opt.getParent();
        if (optParent == null || optParent.getParent() == null || !versions.getFileName().toString().equals("versions")
                || !opt.getFileName().toString().equals("drover-agent") || !optParent.getFileName().toString().equals("opt")) {
            throw new Refused(notInstalled + ": it runs from " + real + ", not from <prefix>/opt/drover-agent/versions/<version>");
        }
        Layout layout = new Layout(optParent.getParent());
        if (!layout.prefix().toString().matches(InstallOptions.PLAIN_PATH)) {
            throw new Refused("the installation's prefix " + AgentPackageName.shown(layout.prefix().toString())
                    + " is not a path the installer "
                    + "takes (letters, digits and '._/+-'): upgrade it by hand with 'drover-agent upgrade'");
        }
        String running = real.getFileName().toString();
        if (!layout.currentVersion().map(running::equals).orElse(false)) {
            throw new Refused(notInstalled + ": " + layout.current() + " does not point at the version it runs, " + running);
        }
        if (!Files.isDirectory(root) || !layout.prefix().equals(root.toRealPath())) {
            throw new Refused(notInstalled + ": its root " + root + " is not the installation's prefix " + layout.prefix());
        }
        return layout;
    }

    /** Unpacked packages of upgrades that ended without their upgrader (an agent killed while it unpacked): none runs now. */
    private static void removeLeftovers(Layout layout) throws IOException {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(layout.opt(), ".upgrade-*")) {
            for (Path leftover : dir) {
                DurableFiles.deleteTree(leftover);
            }
        }
    }

    /** Fetches and unpacks the package to {@code staged}; it must be one directory holding the version asked for. */
    private AgentPackage stage(UpgradeAgent call, String sha256, Path staged) throws IOException {
        Path archive = files.fetch(call.source(), sha256);
        try {
            String actual;
            try (InputStream in = Files.newInputStream(archive)) {
                actual = io.drover.core.Hashing.sha256(in);
            }
            if (!actual.equals(sha256)) {
                throw new Refused(AgentPackageName.shown(call.source()) + " has sha256 " + actual + ", not " + sha256);
            }
            new PackageInstaller(MAX_BYTES, SafeFiles.MAX_ENTRIES).install(archive, staged);
            writableByOwnerOnly(staged);
        } finally {
            Files.deleteIfExists(archive);
        }
        List<Path> top = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(staged)) {
            dir.forEach(top::add);
        }
        if (top.size() != 1 || !Files.isDirectory(top.getFirst(), LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused(AgentPackageName.shown(call.source()) + " is not an agent package: it must unpack to one directory, "
                    + "drover-agent-<version>-linux-<arch>");
        }
        try {
            AgentPackage pkg = AgentPackage.open(top.getFirst());
            if (!pkg.version().equals(call.version())) {
                throw new Refused(AgentPackageName.shown(call.source()) + " holds version " + pkg.version() + ", not " + call.version());
            }
            pkg.requireArch(hostArch);
            return pkg;
        } catch (InstallFailed e) {
            throw new Refused(e.getMessage());
        }
    }

    /**
     * The unpacked tree took the agent's umask; its launcher runs as root seconds later, so nobody else may write to
     * any of it.
     */
    private static void writableByOwnerOnly(Path staged) throws IOException {
        try (var all = Files.walk(staged)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isSymbolicLink(p)) {
                    continue;
                }
                var perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
                if (perms.remove(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                        | perms.remove(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
                    Files.setPosixFilePermissions(p, perms);
                }
            }
        }
    }

    /** Starts the upgrader in a session of its own (it outlives the agent it stops); returns its pid. */
    private long launch(Layout layout, AgentPackage pkg, Path staged, Path lock, Path log, int waitSeconds) throws IOException {
        try {
            SafeFiles.directory(layout.logDir(), "rwx------");
        } catch (InstallFailed e) {
            throw new IOException(e.getMessage(), e);
        }
        if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
            Files.createFile(log, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        List<String> command = new ArrayList<>();
        // setsid execs the shell (a child of the JVM is no group leader): the pid is the upgrader's for its whole run
        command.add(onPath("setsid").or(() -> onPath("nohup")).orElseThrow(() -> new IOException(
                "neither setsid nor nohup is on " + BackgroundProcess.PATH + ": the upgrader cannot outlive the agent")).toString());
        command.addAll(List.of("/bin/sh", "-c", SCRIPT, "drover-agent-upgrade", pkg.dir().resolve("bin/drover-agent").toString(),
                layout.prefix().toString(), pkg.dir().toString(), staged.toString(), lock.toString(),
                Integer.toString(waitSeconds)));
        // the agent's environment is not the upgrader's business
        return BackgroundProcess.detached(command, log).start().pid();
    }

    /** The program's absolute path in {@link BackgroundProcess#PATH}: what runs is what was found, whatever the agent's own PATH. */
    private static java.util.Optional<Path> onPath(String program) {
        for (String dir : BackgroundProcess.PATH.split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return java.util.Optional.of(candidate);
            }
        }
        return java.util.Optional.empty();
    }

    /** Creates the lock with this agent's pid; refused while another upgrade's lock is live. */
    private void takeLock(Path lock, String to) throws IOException {
        Files.createDirectories(lock.getParent());
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                Files.writeString(lock, lockText(ProcessHandle.current().pid(), to), java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE);
                return;
            } catch (FileAlreadyExistsException e) {
                String live = liveLock(lock);
                if (live != null) {
                    throw new Refused("another upgrade is in progress (" + live + "); its lock is " + lock);
                }
                Files.deleteIfExists(lock);
            }
        }
        throw new Refused("another upgrade took the lock " + lock + " at the same time");
    }

    private void writeLock(Path lock, long pid, String to) throws IOException {
        DurableFiles.write(lock, lockText(pid, to).getBytes(StandardCharsets.US_ASCII));
    }

    private String lockText(long pid, String to) {
        return pid + " " + startOf(pid) + " " + to + "\n";
    }

    /** What a lock that still holds says ("to 2.0.0 by pid 123 since ..."), or null when it is stale or unreadable. */
    private String liveLock(Path lock) {
        String text;
        try (InputStream in = Files.newInputStream(lock, LinkOption.NOFOLLOW_LINKS)) {
            text = new String(in.readNBytes(200), StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length != 3 || !parts[0].matches("[0-9]{1,10}") || !parts[1].matches("[0-9]{1,15}")) {
            return null;
        }
        long pid = Long.parseLong(parts[0]);
        long started = Long.parseLong(parts[1]);
        // the lock's process, not another one that got its pid later: the same start time (0: none was known)
        boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        if (!alive || started != 0 && Math.abs(startOf(pid) - started) > 2_000) {
            return null;
        }
        Instant since = Instant.ofEpochMilli(started);
        return "to " + AgentPackageName.shown(parts[2]) + " by pid " + pid + " since " + since;
    }

    /** When the process started (epoch ms), or 0 when that cannot be read. */
    private static long startOf(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).map(Instant::toEpochMilli).orElse(0L);
    }


}

package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.agent.functions.FileSource;
import io.drover.agent.functions.Functions;
import io.drover.agent.install.FakePackage.Behaviour;
import io.drover.agent.supervisor.Supervisor;
import io.drover.core.Hashing;
import io.drover.core.archive.TarWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agent.upgrade} through the agent's functions, on an agent installed under a temporary prefix with
 * {@code --service process} (a fake agent, see {@link FakePackage}; its {@code upgrade} is the real installer).
 */
class SelfUpgradeTest {
    private static final String ARCH = AgentPackage.hostArch(System.getProperty("os.arch"));
    /** When this JVM started: what a lock it holds records. */
    private static final long START = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
    private int jobsRunning = 1;

    @TempDir
    Path temp;
    Path prefix;
    Path packages;
    Path served;
    Path argsFile;
    Layout layout;
    Supervisor supervisor;

    @BeforeEach
    void installVersion1() throws IOException {
        prefix = Files.createDirectory(temp.resolve("root"));
        packages = Files.createDirectory(temp.resolve("packages"));
        served = Files.createDirectory(temp.resolve("served"));
        argsFile = temp.resolve("agent-args.txt");
        layout = new Layout(prefix);
        Path v1 = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        assertThat(installer("install", "--prefix", prefix.toString(), "--package", v1.toString(), "--master", "127.0.0.1",
                "--id", "web-01", "--service", "process")).isZero();
        supervisor = new Supervisor(layout.state(), prefix, name -> { });
    }

    @AfterEach
    void uninstall() {
        supervisor.close();
        // whatever a test left running: an upgrader still at work first, then the agent
        await().atMost(Duration.ofSeconds(90)).until(() -> !Files.exists(layout.state().resolve("upgrade.lock")));
        installer("uninstall", "--prefix", prefix.toString());
        assertThat(new BackgroundProcess(layout, Duration.ofSeconds(1)).agent()).as("an agent left running").isEmpty();
    }

    @Test
    void handsOverToThePackagesInstallerWhichRestartsTheAgentOnTheNewVersion() throws Exception {
        ProcessHandle before = agent();
        String sha256 = serve(FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile));

        // while another job runs, the restart would cut it short
        jobsRunning = 3;
        assertRefused(functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0")),
                "2 other job(s) run on the agent, and the restart would cut them short");
        jobsRunning = 1;

        // a lock whose pid now belongs to a process that started later than the lock's holder is stale
        Files.writeString(layout.state().resolve("upgrade.lock"),
                ProcessHandle.current().pid() + " " + (START - 60_000) + " 1.5.0\n");
        Path leftover = Files.createDirectories(layout.opt().resolve(".upgrade-1.9.0.new-123/drover-agent-1.9.0-linux-" + ARCH));

        Functions.Result result = functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0", 45));

        assertThat(leftover.getParent()).as("what an upgrade killed while unpacking left").doesNotExist();
        Path log = layout.logDir().resolve("upgrade-2.0.0.log");
        assertThat(result.retcode()).as(String.valueOf(result.value())).isZero();
        assertThat(result.value()).isEqualTo(Map.of("from_version", "1.0.0", "to_version", "2.0.0", "log", log.toString()));
        // the reply comes before the restart: the agent that answered still runs
        assertThat(before.isAlive()).isTrue();
        assertThat(layout.opt().resolve(".upgrade-2.0.0/drover-agent-2.0.0-linux-" + ARCH + "/VERSION")).hasContent("2.0.0\n");
        assertThat(mode(log)).isEqualTo("rw-------");
        assertThat(mode(layout.opt().resolve(".upgrade-2.0.0/drover-agent-2.0.0-linux-" + ARCH + "/bin")))
                .as("nobody else may change what runs as root in a moment").matches("rwx[r-]-[x-][r-]-[x-]");

        // one upgrade at a time
        Functions.Result second = functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0"));
        assertThat(second.retcode()).isEqualTo(1);
        assertThat(String.valueOf(second.value())).startsWith("agent.upgrade: another upgrade is in progress (to '2.0.0' by pid ");

        await().atMost(Duration.ofSeconds(90)).until(() -> !Files.exists(layout.state().resolve("upgrade.lock")));
        assertThat(Files.readString(log)).as(Files.readString(log))
                .contains("--wait-seconds 45").contains("drover-agent upgraded from 1.0.0 to 2.0.0 and signed in")
                .contains("upgrade ended with exit status 0");
        assertThat(Files.readSymbolicLink(layout.current())).isEqualTo(Path.of("versions/2.0.0"));
        assertThat(layout.opt().resolve(".upgrade-2.0.0")).doesNotExist();
        assertThat(before.isAlive()).isFalse();
        ProcessHandle after = agent();
        assertThat(after.pid()).isNotEqualTo(before.pid());
        assertThat(Files.readAllLines(argsFile)).extracting(l -> l.split(" ")[0]).containsExactly("1.0.0", "2.0.0");
        assertThat(AgentHome.version(layout.current(), "0.0.0")).isEqualTo("2.0.0");
    }

    @Test
    void anAgentNotRunningFromItsInstallationIsRefused() throws Exception {
        String sha256 = serve(FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile));
        List<Object> call = List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0");

        assertRefused(functions(null, "1.0.0").call("agent.upgrade", call),
                "this agent does not run from an installed package (drover-agent install): upgrade it the way it was installed");
        assertRefused(functions(packages.resolve("drover-agent-1.0.0-linux-" + ARCH), "1.0.0").call("agent.upgrade", call),
                "this agent does not run from an installed package (drover-agent install): it runs from "
                        + packages.toRealPath().resolve("drover-agent-1.0.0-linux-" + ARCH)
                        + ", not from <prefix>/opt/drover-agent/versions/<version>");
        assertRefused(functions(temp.resolve("gone"), "1.0.0").call("agent.upgrade", call),
                "this agent does not run from an installed package (drover-agent install): the package it was started from, "
                        + temp.resolve("gone") + ", is gone");
        SafeFiles.copyTree(layout.version("1.0.0"), layout.version("0.9.0"));
        assertRefused(functions(layout.version("0.9.0"), "0.9.0").call("agent.upgrade", call),
                "this agent does not run from an installed package (drover-agent install): " + layout.current()
                        + " does not point at the version it runs, 0.9.0");
        // an installation the installer could not upgrade (it takes no such --prefix) is refused before anything is fetched
        Path spaced = temp.resolve("a prefix");
        SafeFiles.copyTree(prefix, spaced);
        Path spacedHome = new Layout(spaced).version("1.0.0");
        assertRefused(new Functions(Map::of, "1.0.0", spaced, supervisor, this::fetch, jid -> null, () -> List.of(),
                Functions::noPlans, new SelfUpgrade(spaced, spacedHome, "1.0.0", this::fetch, () -> 1))
                .call("agent.upgrade", call), "the installation's prefix '" + spaced.toRealPath() + "' is not a path the installer takes");
        Files.writeString(layout.serviceKind(), "none\n");
        assertRefused(functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade", call),
                "the agent was installed with --service none");
    }

    @Test
    void badVersionsAndShaSumsAreRefused() throws Exception {
        String sha256 = serve(FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile));
        String source = "agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz";
        Functions functions = functions(layout.version("1.0.0"), "1.0.0");

        assertRefused(functions.call("agent.upgrade", List.of(source, sha256, "../../etc")),
                "version '../../etc' must be 1 to 64 letters, digits");
        assertRefused(functions.call("agent.upgrade", List.of(source, sha256, "2.0")),
                "version '2.0' is not a semantic version in its normal form");
        assertRefused(functions.call("agent.upgrade", List.of(source, sha256, "2.0.0\nx")),
                "version '2.0.0\\u000ax' must be");
        assertRefused(functions.call("agent.upgrade", List.of(source, sha256, "1.0.0")),
                "drover-agent 1.0.0 runs already; nothing to upgrade");
        assertRefused(functions.call("agent.upgrade", List.of(source, "abc", "2.0.0")), "sha256 'abc' is not 64 hex digits");
        assertRefused(functions.call("agent.upgrade", List.of(source, "0".repeat(64), "2.0.0")),
                "'" + source + "' has sha256 " + sha256 + ", not " + "0".repeat(64));
        assertRefused(functions.call("agent.upgrade", List.of(source, sha256, "2.1.0")),
                "'" + source + "' holds version 2.0.0, not 2.1.0");
    }

    @Test
    void aPackageForAnotherArchitectureIsRefused() throws Exception {
        String other = ARCH.equals("x86_64") ? "aarch64" : "x86_64";
        String sha256 = serve(FakePackage.create(packages, "2.0.0", other, Behaviour.SIGNS_IN, argsFile));

        assertRefused(functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                        List.of("agent-packages/drover-agent-2.0.0-linux-" + other + ".tar.gz", sha256, "2.0.0")),
                "the package is for " + other + " but this host is " + ARCH);
    }

    @Test
    void aPackageThatLeavesItsDirectoryIsRefused() throws Exception {
        Path pkg = FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        String sha256 = serve(pkg, tar -> tar.file("drover-agent-2.0.0-linux-" + ARCH + "/../../../escaped", 0644, new byte[1]));

        assertRefused(functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0")),
                "entry 'drover-agent-2.0.0-linux-" + ARCH + "/../../../escaped' leaves the package with '..'");
        assertThat(layout.prefix().resolve("escaped")).doesNotExist();
        assertThat(layout.opt().resolve("escaped")).doesNotExist();
    }

    @Test
    void anUpgradeInProgressIsNotStartedAgain() throws Exception {
        String sha256 = serve(FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile));
        Path lock = layout.state().resolve("upgrade.lock");
        String held = ProcessHandle.current().pid() + " " + START + " 1.5.0\n";
        Files.writeString(lock, held);

        Functions.Result result = functions(layout.version("1.0.0"), "1.0.0").call("agent.upgrade",
                List.of("agent-packages/drover-agent-2.0.0-linux-" + ARCH + ".tar.gz", sha256, "2.0.0"));

        assertThat(result.retcode()).isEqualTo(1);
        assertThat(result.value()).isEqualTo("agent.upgrade: another upgrade is in progress (to '1.5.0' by pid "
                + ProcessHandle.current().pid() + " since " + Instant.ofEpochMilli(START) + "); its lock is " + lock);
        assertThat(lock).hasContent(held.strip());
        Files.delete(lock);
        assertUnchanged();
    }

    private void assertRefused(Functions.Result result, String message) throws IOException {
        assertThat(result.retcode()).isEqualTo(1);
        assertThat(String.valueOf(result.value())).startsWith("agent.upgrade: " + message);
        assertUnchanged();
    }

    /** Nothing of a refused upgrade stays: no unpacked package, no lock, the same version current and running. */
    private void assertUnchanged() throws IOException {
        try (var entries = Files.list(layout.opt())) {
            assertThat(entries.map(p -> p.getFileName().toString())).doesNotContain(".upgrade-2.0.0", ".upgrade-2.1.0")
                    .noneMatch(name -> name.startsWith(".upgrade"));
        }
        assertThat(layout.state().resolve("upgrade.lock")).doesNotExist();
        assertThat(Files.readSymbolicLink(layout.current())).isEqualTo(Path.of("versions/1.0.0"));
        assertThat(agent().isAlive()).isTrue();
    }

    private Functions functions(Path home, String version) {
        FileSource files = this::fetch;
        return new Functions(Map::of, version, prefix, supervisor, files, jid -> null, () -> List.of(), Functions::noPlans,
                new SelfUpgrade(prefix, home, version, files, () -> jobsRunning));
    }

    /** The server's file source, from {@link #served}: refuses a file whose sha256 differs, as the real one does. */
    private Path fetch(String path, String sha256) throws IOException {
        Path file = served.resolve(path.substring(path.lastIndexOf('/') + 1));
        String actual;
        try (InputStream in = Files.newInputStream(file)) {
            actual = Hashing.sha256(in);
        }
        if (!actual.equals(sha256)) {
            throw new IOException("'" + path + "' has sha256 " + actual + ", not " + sha256);
        }
        Path copy = Files.createTempFile(temp, "fetch-", ".part");
        Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
        return copy;
    }

    private interface Extra {
        void write(TarWriter tar) throws IOException;
    }

    private String serve(Path pkg) throws IOException {
        return serve(pkg, tar -> { });
    }

    /** Packs the package directory as the build does ({@code <dir>/...}), with {@code extra} entries; its sha256. */
    private String serve(Path pkg, Extra extra) throws IOException {
        Path file = served.resolve(pkg.getFileName() + ".tar.gz");
        Path base = pkg.getParent();
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file)); TarWriter tar = new TarWriter(out)) {
            Files.walkFileTree(pkg, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    tar.directory(base.relativize(dir).toString(), 0755);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    String name = base.relativize(f).toString();
                    if (attrs.isSymbolicLink()) {
                        tar.special(name, '2', Files.readSymbolicLink(f).toString());
                    } else {
                        boolean exec = Files.getPosixFilePermissions(f).contains(PosixFilePermission.OWNER_EXECUTE);
                        tar.file(name, exec ? 0755 : 0644, Files.readAllBytes(f));
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
            extra.write(tar);
        }
        try (InputStream in = Files.newInputStream(file)) {
            return Hashing.sha256(in);
        }
    }

    private ProcessHandle agent() {
        return new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow(() -> new AssertionError("no agent runs"));
    }

    private int installer(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Host host = new Host(new ByteArrayInputStream(new byte[0]), false, false, ARCH, null,
                a -> new Systemd.Systemctl.Result(0, ""), Clock.systemUTC(), "test-host", Duration.ofSeconds(5));
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = InstallCommands.run(args, 0, print, print, host);
        assertThat(status).as(out.toString(StandardCharsets.UTF_8)).isZero();
        return status;
    }

    private static String mode(Path path) throws IOException {
        return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }
}

package io.drover.agent.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.agent.install.FakePackage.Behaviour;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** drover-agent install, upgrade, uninstall and status into a temporary prefix, with a fake agent (see FakePackage). */
class InstallCommandsTest {
    private static final String TOKEN = "enroll-7f3a9c-secret";
    private static final String ARCH = AgentPackage.hostArch(System.getProperty("os.arch"));

    @TempDir
    Path temp;
    Path prefix;
    Path packages;
    Path argsFile;
    Layout layout;
    final List<List<String>> systemctlCalls = new CopyOnWriteArrayList<>();
    String out;
    String err;

    @BeforeEach
    void setUp() throws IOException {
        prefix = Files.createDirectory(temp.resolve("root"));
        packages = Files.createDirectory(temp.resolve("packages"));
        argsFile = temp.resolve("agent-args.txt");
        layout = new Layout(prefix);
    }

    @AfterEach
    void stopAgents() throws IOException {
        // the background agents started by a test are its children: stopped whatever the test did
        run("uninstall", "--prefix", prefix.toString());
        Optional<ProcessHandle> left = new BackgroundProcess(layout, Duration.ofSeconds(1)).agent();
        left.ifPresent(ProcessHandle::destroyForcibly);
        assertThat(left).as("an agent left running").isEmpty();
    }

    @Test
    void installsIntoThePrefixAndWaitsForTheSignIn() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);

        int status = runWithInput(TOKEN + "\n", "install", "--prefix", prefix.toString(), "--package", pkg.toString(),
                "--master", "10.0.0.5:4506,10.0.0.6", "--id", "web-01", "--enroll-token-file", "-", "--heartbeat", "10",
                "--service", "process", "--wait-seconds", "30");

        assertThat(status).as(err).isZero();
        assertThat(out).contains("drover-agent 1.0.0 installed as web-01 and signed in to '127.0.0.1:4506'");
        assertThat(Files.readSymbolicLink(layout.current())).isEqualTo(Path.of("versions/1.0.0"));
        assertThat(layout.version("1.0.0").resolve("bin/drover-agent")).isExecutable();
        assertThat(Files.readSymbolicLink(layout.version("1.0.0").resolve("runtime/lib"))).isEqualTo(Path.of("../lib"));
        assertThat(mode(layout.state())).isEqualTo("rwx------");
        assertThat(mode(layout.secrets())).isEqualTo("rwx------");
        assertThat(mode(layout.tokenFile())).isEqualTo("rw-------");
        assertThat(mode(layout.config())).isEqualTo("rw-------");
        assertThat(mode(layout.logFile())).isEqualTo("rw-------");
        assertThat(Files.readString(layout.tokenFile())).isEqualTo(TOKEN + "\n");
        assertThat(Files.readString(layout.config())).isEqualTo("""
                # The Drover agent's configuration, written by 'drover-agent install': run it again with other
                # options to change it. Secrets are in the files the *-file settings name, never here.
                id: 'web-01'
                master: '10.0.0.5:4506,10.0.0.6'
                heartbeat: '10'
                root: '%s'
                enroll-token-file: '%s'
                """.formatted(prefix, layout.tokenFile()));
        assertThat(Files.readAllLines(argsFile)).containsExactly("1.0.0 run --config " + layout.config());

        // the token is in its file only: not in the configuration, nor the agent's arguments or environment
        ProcessHandle agent = new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow();
        assertThat(Files.readString(layout.pidFile()).strip()).isEqualTo(Long.toString(agent.pid()));
        String stat = Files.readString(Path.of("/proc/" + agent.pid() + "/stat"));
        assertThat(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]).as("its session").isEqualTo(Long.toString(agent.pid()));
        assertThat(Files.readString(layout.config())).doesNotContain(TOKEN);
        assertThat(new String(Files.readAllBytes(Path.of("/proc/" + agent.pid() + "/cmdline")), StandardCharsets.UTF_8))
                .contains(layout.config().toString()).doesNotContain(TOKEN);
        assertThat(new String(Files.readAllBytes(Path.of("/proc/" + agent.pid() + "/environ")), StandardCharsets.UTF_8))
                .doesNotContain(TOKEN).doesNotContain("DROVER");
    }

    @Test
    void aSecondInstallWithTheSameOptionsChangesNothing() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        String[] install = {"install", "--prefix", prefix.toString(), "--package", pkg.toString(), "--master", "drover",
                "--id", "web-01", "--enroll-token-file", "-", "--service", "process"};
        assertThat(runWithInput(TOKEN, install)).as(err).isZero();
        long pid = new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow().pid();
        long configChanged = Files.getLastModifiedTime(layout.config()).toMillis();

        assertThat(runWithInput(TOKEN, install)).as(err).isZero();

        assertThat(out).contains("drover-agent 1.0.0 is already installed and running; nothing changed")
                .contains("the agent signed in to '127.0.0.1:4506'");
        assertThat(new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow().pid()).isEqualTo(pid);
        assertThat(Files.readAllLines(argsFile)).hasSize(1);
        assertThat(Files.getLastModifiedTime(layout.config()).toMillis()).isEqualTo(configChanged);

        // other options: the configuration is rewritten and the agent restarted
        assertThat(runWithInput(TOKEN, install[0], install[1], install[2], install[3], install[4], "--master", "drover2",
                "--id", "web-01", "--enroll-token-file", "-")).as(err).isZero();
        assertThat(Files.readString(layout.config())).contains("master: 'drover2'");
        assertThat(Files.readAllLines(argsFile)).hasSize(2);
        assertThat(new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow().pid()).isNotEqualTo(pid);
    }

    @Test
    void theTokenIsReadFromAFileAndAnUnreadableOneChangesNothing() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        Path tokenFile = temp.resolve("token");
        Files.writeString(tokenFile, "  " + TOKEN + "  \nsecond line\n");

        assertThat(run("install", "--prefix", prefix.toString(), "--package", pkg.toString(), "--master", "drover",
                "--id", "web-01", "--enroll-token-file", temp.resolve("missing").toString(), "--service", "process")).isEqualTo(1);
        assertThat(err).contains("the enrollment token file").contains("cannot be read");
        assertThat(prefix.resolve("opt")).doesNotExist();

        assertThat(runWithInput("", "install", "--prefix", prefix.toString(), "--package", pkg.toString(), "--master",
                "drover", "--id", "web-01", "--enroll-token-file", "-", "--service", "process")).isEqualTo(1);
        assertThat(err).contains("the enrollment token on standard input is empty");

        assertThat(run("install", "--prefix", prefix.toString(), "--package", pkg.toString(), "--master", "drover",
                "--id", "web-01", "--enroll-token-file", tokenFile.toString(), "--service", "process")).as(err).isZero();
        assertThat(Files.readString(layout.tokenFile())).isEqualTo(TOKEN + "\n");
    }

    @Test
    void upgradeSwitchesTheVersionAndKeepsStateAndConfiguration() throws Exception {
        Path v1 = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        Path v2 = FakePackage.create(packages, "2.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        install(v1);
        Files.writeString(layout.state().resolve("minion.pem"), "the agent's key");
        String config = Files.readString(layout.config());

        assertThat(run("upgrade", "--prefix", prefix.toString(), "--package", v2.toString())).as(err).isZero();

        assertThat(out).contains("drover-agent upgraded from 1.0.0 to 2.0.0 and signed in");
        assertThat(Files.readSymbolicLink(layout.current())).isEqualTo(Path.of("versions/2.0.0"));
        assertThat(layout.installedVersions()).containsExactly("1.0.0", "2.0.0");
        assertThat(Files.readString(layout.state().resolve("minion.pem"))).isEqualTo("the agent's key");
        assertThat(Files.readString(layout.config())).isEqualTo(config);
        assertThat(Files.readAllLines(argsFile)).extracting(l -> l.split(" ")[0]).containsExactly("1.0.0", "2.0.0");

        assertThat(run("upgrade", "--prefix", prefix.toString(), "--package", v2.toString())).as(err).isZero();
        assertThat(out).contains("drover-agent 2.0.0 is installed already; nothing to upgrade");

        assertThat(run("status", "--prefix", prefix.toString())).as(err).isZero();
        assertThat(out).contains("installed:     1.0.0, 2.0.0").contains("current:       2.0.0")
                .contains("service:       process, running (pid ").contains("last sign-in:  SIGNED_IN ('127.0.0.1:4506'");
    }

    @Test
    void anUpgradeThatDoesNotSignInIsRolledBack() throws Exception {
        Path v1 = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        Path v2 = FakePackage.create(packages, "2.0.0", ARCH, Behaviour.UNREACHABLE, argsFile);
        install(v1);

        assertThat(run("upgrade", "--prefix", prefix.toString(), "--package", v2.toString(), "--wait-seconds", "2")).isEqualTo(1);

        assertThat(err).startsWith("error: the upgrade to 2.0.0 failed (the server '127.0.0.1:4506' does not answer the "
                + "agent's sign-in").contains("log: " + layout.logFile())
                .contains("rolled back to 1.0.0, which signed in to '127.0.0.1:4506'");
        assertThat(err.strip()).doesNotContain("\n");
        assertThat(Files.readSymbolicLink(layout.current())).isEqualTo(Path.of("versions/1.0.0"));
        assertThat(layout.installedVersions()).containsExactly("1.0.0");
        assertThat(Files.readAllLines(argsFile)).extracting(l -> l.split(" ")[0]).containsExactly("1.0.0", "2.0.0", "1.0.0");
        assertThat(new BackgroundProcess(layout, Duration.ofSeconds(5)).running()).isTrue();
    }

    @Test
    void anAgentThatDoesNotSignInFailsTheInstallWithTheReason() throws Exception {
        Path pending = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.PENDING, argsFile);
        assertThat(install(pending, "--wait-seconds", "3")).isEqualTo(1);
        assertThat(err).isEqualTo("error: drover-agent 1.0.0 is installed but did not sign in: the server '127.0.0.1:4506' "
                + "holds the agent's key pending: the enrollment token was not accepted (wrong, expired or used up) or none "
                + "was given; accept it with 'drover key accept web-01'; log: " + layout.logFile() + "\n");

        // installed again unchanged: not restarted, and still not signed in
        assertThat(install(pending, "--wait-seconds", "1")).isEqualTo(1);
        assertThat(err).startsWith("error: drover-agent 1.0.0 runs but is not signed in: the server '127.0.0.1:4506' "
                + "holds the agent's key pending");
        assertThat(Files.readAllLines(argsFile)).hasSize(1);
    }

    @Test
    void aWrongFingerprintFailsAtOnce() throws Exception {
        Path wrong = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.WRONG_FINGER, argsFile);
        long started = System.nanoTime();
        assertThat(install(wrong, "--wait-seconds", "60")).isEqualTo(1);
        assertThat(err).contains("is not the one --master-finger names: 'fake agent'");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void anAgentThatExitsFailsTheInstallWithItsLastLogLine() throws Exception {
        Path exits = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.EXITS, argsFile);
        assertThat(install(exits)).isEqualTo(1);
        assertThat(err).isEqualTo("error: drover-agent 1.0.0 is installed but did not sign in: the agent stopped: "
                + "'error: --master 'nowhere:x' is not HOST or HOST:PORT'; log: " + layout.logFile() + "\n");
    }

    @Test
    void uninstallKeepsStateUnlessPurged() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        install(pkg);
        ProcessHandle agent = new BackgroundProcess(layout, Duration.ofSeconds(5)).agent().orElseThrow();

        assertThat(run("uninstall", "--prefix", prefix.toString())).as(err).isZero();

        assertThat(agent.isAlive()).isFalse();
        assertThat(layout.opt()).doesNotExist();
        assertThat(layout.pidFile()).doesNotExist();
        assertThat(layout.state()).isDirectory();
        assertThat(layout.config()).exists();
        assertThat(layout.tokenFile()).exists();
        assertThat(out).startsWith("drover-agent removed under " + prefix + "; kept its state (key, journal) in " + layout.state());

        assertThat(run("status", "--prefix", prefix.toString())).isEqualTo(1);
        assertThat(out).isEqualTo("drover-agent is not installed under " + prefix + "\n");

        assertThat(run("uninstall", "--prefix", prefix.toString(), "--purge")).as(err).isZero();
        assertThat(layout.state()).doesNotExist();
        assertThat(layout.etc()).doesNotExist();
        assertThat(layout.logDir()).doesNotExist();

        assertThat(run("uninstall", "--prefix", prefix.toString(), "--purge")).as(err).isZero();
        assertThat(out).isEqualTo("drover-agent is not installed under " + prefix + "; nothing to remove\n");
    }

    @Test
    void aPackageForAnotherArchitectureIsRefused() throws Exception {
        String other = ARCH.equals("x86_64") ? "aarch64" : "x86_64";
        Path pkg = FakePackage.create(packages, "1.0.0", other, Behaviour.SIGNS_IN, argsFile);

        assertThat(install(pkg)).isEqualTo(1);

        assertThat(err).isEqualTo("error: the package is for " + other + " but this host is " + ARCH
                + ": use drover-agent-1.0.0-linux-" + ARCH + "\n");
        assertThat(prefix.resolve("opt")).doesNotExist();
        assertThat(prefix.resolve("etc")).doesNotExist();
    }

    @Test
    void theInstalledCopyBelongsToTheInstallerNotToWhoeverUnpackedThePackage() throws Exception {
        Assumptions.assumeTrue(owner(temp) == 0, "needs root to give the package another owner");
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        Path jar = pkg.resolve("lib/drover-agent-1.0.0.jar");
        Files.setAttribute(jar, "unix:uid", 4321);
        Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-rw-rw-"));

        assertThat(install(pkg)).as(err).isZero();

        Path copy = layout.version("1.0.0").resolve("lib/drover-agent-1.0.0.jar");
        assertThat(owner(copy)).isZero();
        assertThat(mode(copy)).isEqualTo("rw-r--r--");
        assertThat(mode(layout.version("1.0.0").resolve("bin/drover-agent"))).isEqualTo("rwxr-xr-x");
        assertThat(Files.getLastModifiedTime(copy)).isEqualTo(Files.getLastModifiedTime(jar));
    }

    @Test
    void aPackageWithALinkLeavingItIsRefused() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);
        Files.createSymbolicLink(pkg.resolve("lib/escape"), Path.of("../../../etc"));

        assertThat(install(pkg)).isEqualTo(1);

        assertThat(err).contains("the package holds a link that leaves it: lib/escape -> ../../../etc");
        assertThat(layout.installedVersions()).isEmpty();
    }

    @Test
    void withSystemdTheUnitIsWrittenEnabledAndRemoved() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);

        assertThat(install(pkg, "--service", "systemd", "--wait-seconds", "0")).as(err).isZero();

        assertThat(systemctlCalls).containsExactly(List.of("daemon-reload"), List.of("stop", "drover-agent.service"),
                List.of("enable", "--now", "drover-agent.service"), List.of("is-active", "drover-agent.service"));
        assertThat(Files.readString(layout.unit())).contains("ExecStart=" + prefix
                + "/opt/drover-agent/current/bin/drover-agent run --config " + prefix + "/etc/drover/agent.yaml\n");
        assertThat(mode(layout.unit())).isEqualTo("rw-r--r--");

        systemctlCalls.clear();
        assertThat(run("uninstall", "--prefix", prefix.toString())).as(err).isZero();
        assertThat(systemctlCalls).containsExactly(List.of("disable", "--now", "drover-agent.service"), List.of("daemon-reload"));
        assertThat(layout.unit()).doesNotExist();
    }

    @Test
    void withoutSystemdInstallSaysHowToRunTheAgent() throws Exception {
        Path pkg = FakePackage.create(packages, "1.0.0", ARCH, Behaviour.SIGNS_IN, argsFile);

        assertThat(install(pkg, "--service", "auto")).as(err).isZero();

        assertThat(out).contains("systemd is not running here; run the agent under your own supervisor as:\n  "
                + layout.launcher() + " run --config " + layout.config() + "\n");
        assertThat(argsFile).doesNotExist();
        assertThat(layout.unit()).doesNotExist();
    }

    @Test
    void withoutPrefixItMustRunAsRoot() throws Exception {
        assertThat(InstallCommands.run(new String[] {"status"}, 0, print(), print(), host(""))).isEqualTo(1);
        assertThat(lastErr.toString()).startsWith("error: drover-agent status must run as root").contains("--prefix DIR");
    }

    @Test
    void eachCommandHasHelp() {
        for (String command : new String[] {"install", "upgrade", "uninstall", "status"}) {
            assertThat(run(command, "--help")).isZero();
            assertThat(out).startsWith("Usage: drover-agent " + command).contains("Examples:").contains("--prefix DIR");
        }
        assertThat(out).doesNotContain("--purge");
        run("install", "-h");
        assertThat(out).contains("--enroll-token-file FILE|-").contains("--master HOST[:PORT]");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', quoteCharacter = '"', value = {
            "#error: no command: drover-agent install|upgrade|uninstall|status (each has --help)",
            "reinstall#error: unknown command 'reinstall'",
            "install --enroll-token s3cret --master m#error: --enroll-token is not taken: a process's arguments are visible",
            "install --id web#error: --master is required",
            "install --master m --wait-seconds soon#error: --wait-seconds 'soon' is not a whole number",
            "install --master m --wait-seconds 4000#error: --wait-seconds must be 0 to 3600, not 4000",
            "install --master m --service runit#error: --service must be auto, systemd, process or none, not 'runit'",
            "install --master#error: --master needs a value: --master HOST[:PORT][,HOST[:PORT]...]",
            "install --master a:b:c:99999#error: --master port 99999 is not between 1 and 65535",
            "install --master 'a b'#error: --master 'a b' is not HOST or HOST:PORT",
            "install --master m --id ../etc#error: --id '../etc' is not a valid agent id",
            "install --master m --master n#error: --master is given more than once",
            "install --master m --purge#error: --purge is not an option of install",
            "install --master m --amqp-url amqp://u:pw@broker/#error: --amqp-url holds a password",
            "install --master m --amqp-password-file /etc/hostname#error: --amqp-password-file needs --amqp-url",
            "install --master m --root /#error: --root is not an option of install: the agent's root is --prefix",
            "install --master m --prefix relative/dir#error: --prefix 'relative/dir' is not a directory",
            "install --master m --prefix '/tmp/a b'#error: --prefix '/tmp/a b' must be a path of letters",
            "install --master m --amqp-reply-to=yes#error: --amqp-reply-to takes no value (or =true, =false), not 'yes'",
            "uninstall --master m#error: --master is not an option of uninstall",
            "status extra#error: unexpected argument 'extra'",
    })
    void badCommandLinesExitWith2AndSaySo(String line, String message) {
        List<String> args = new ArrayList<>();
        if (line != null) {
            // split at spaces, keeping '...' together
            for (String word : line.split(" (?=(?:[^']*'[^']*')*[^']*$)")) {
                args.add(word.startsWith("'") && word.endsWith("'") && word.length() > 1 ? word.substring(1, word.length() - 1) : word);
            }
        }
        assertThat(run(args.toArray(String[]::new))).isEqualTo(2);
        assertThat(err).startsWith(message);
        assertThat(err.strip()).doesNotContain("\n").doesNotContain("s3cret");
        assertThat(prefix.resolve("opt")).doesNotExist();
    }

    @Test
    void controlCharactersInAValueAreRefused() {
        assertThat(run("install", "--master", "m", "--amqp-queue", "q\nmaster: evil")).isEqualTo(2);
        assertThat(err).isEqualTo("error: --amqp-queue 'q\\u000amaster: evil' holds control characters\n");
    }

    private int install(Path pkg, String... more) {
        List<String> args = new ArrayList<>(List.of("install", "--prefix", prefix.toString(), "--package", pkg.toString(),
                "--master", "127.0.0.1", "--id", "web-01", "--enroll-token-file", "-"));
        if (!List.of(more).contains("--service")) {
            args.addAll(List.of("--service", "process"));
        }
        args.addAll(List.of(more));
        int status = runWithInput(TOKEN, args.toArray(String[]::new));
        return status;
    }

    private int run(String... args) {
        return runWithInput("", args);
    }

    private ByteArrayOutputStream lastOut;
    private ByteArrayOutputStream lastErr;

    private int runWithInput(String stdin, String... args) {
        lastOut = new ByteArrayOutputStream();
        lastErr = new ByteArrayOutputStream();
        int status = InstallCommands.run(args, 0, new PrintStream(lastOut, true, StandardCharsets.UTF_8),
                new PrintStream(lastErr, true, StandardCharsets.UTF_8), host(stdin));
        out = lastOut.toString(StandardCharsets.UTF_8);
        err = lastErr.toString(StandardCharsets.UTF_8);
        return status;
    }

    private PrintStream print() {
        lastErr = new ByteArrayOutputStream();
        return new PrintStream(lastErr, true, StandardCharsets.UTF_8);
    }

    /** Not root (every test gives --prefix), no systemd; systemctl calls are recorded and answer "inactive". */
    private Host host(String stdin) {
        Systemd.Systemctl systemctl = args -> {
            systemctlCalls.add(args);
            return new Systemd.Systemctl.Result(args.getFirst().equals("is-active") ? 3 : 0,
                    args.getFirst().equals("is-active") ? "inactive\n" : "");
        };
        return new Host(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), false, false, ARCH, null,
                systemctl, Clock.systemUTC(), "test-host", Duration.ofSeconds(5));
    }

    private static int owner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }
}

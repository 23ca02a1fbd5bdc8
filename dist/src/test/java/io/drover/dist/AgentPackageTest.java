package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.core.Hashing;
import io.drover.server.BuildVersion;
import io.drover.server.testing.TestServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent package as a host gets it (built by the build's agent-package step before the tests): unpacked, run with no
 * Java on the PATH and no JAVA_HOME, signed in to a real server, answering jobs.
 */
class AgentPackageTest {
    @TempDir
    Path tmp;

    static Path packageFile() throws Exception {
        Path dir = Path.of("target/agent-packages");
        assertThat(dir).as("the build's agent-package step (dist/src/build/agent-package.sh) writes the package here").isDirectory();
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("drover-agent-.+-linux-(x86_64|aarch64)\\.tar\\.gz"))
                    .findFirst().orElseThrow(() -> new AssertionError("no agent package in " + dir.toAbsolutePath()));
        }
    }

    /** The build's package as another version (its directory and VERSION changed), packed under {@code work}. */
    static Path repack(Path work, String version) throws Exception {
        Path home = unpack(packageFile(), work);
        String name = "drover-agent-" + version + "-linux-" + Files.readString(home.resolve("ARCH")).strip();
        Files.move(home, work.resolve(name));
        Files.writeString(work.resolve(name).resolve("VERSION"), version + "\n");
        Path repacked = work.resolve(name + ".tar.gz");
        assertThat(run(new ProcessBuilder("tar", "-czf", repacked.toString(), "-C", work.toString(), name))).startsWith("0\n");
        return repacked;
    }

    /** Unpacks the package under {@code into}; returns its directory. */
    static Path unpack(Path tarball, Path into) throws Exception {
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toAbsolutePath().toString(), "-C", into.toString())
                .redirectErrorStream(true).start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as(out).isZero();
        return into.resolve(tarball.getFileName().toString().replace(".tar.gz", ""));
    }

    /**
     * A PATH with a shell and setsid (the installer's process mode) and nothing else: no java, and no other tool (the
     * launcher uses the shell's builtins only).
     */
    Path pathWithoutJava() throws Exception {
        Path bin = tmp.resolve("path");
        if (!Files.isDirectory(bin)) {
            Files.createDirectories(bin);
            for (String tool : List.of("sh", "setsid")) {
                Path real = Path.of("/usr/bin", tool);
                Files.createSymbolicLink(bin.resolve(tool), Files.exists(real) ? real : Path.of("/bin", tool));
            }
        }
        return bin;
    }

    ProcessBuilder packaged(Path home, String... args) throws Exception {
        return launcher(home.resolve("bin/drover-agent"), args);
    }

    ProcessBuilder launcher(Path launcher, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("JAVA_HOME");
        builder.environment().put("PATH", pathWithoutJava().toString());
        return builder;
    }

    @Test
    void thePackageIsSmallCompleteAndRunsWithoutAJdk() throws Exception {
        Path tarball = packageFile();
        long size = Files.size(tarball);
        System.out.printf("agent package %s: %.1f MiB%n", tarball.getFileName(), size / 1048576.0);
        assertThat(size).as("compressed size").isLessThanOrEqualTo(45L << 20);
        try (InputStream in = Files.newInputStream(tarball)) {
            assertThat(Files.readString(tarball.resolveSibling(tarball.getFileName() + ".sha256")))
                    .startsWith(Hashing.sha256(in) + "  " + tarball.getFileName());
        }
        Path home = unpack(tarball, tmp);
        assertThat(Files.readString(home.resolve("VERSION")).strip()).isEqualTo(BuildVersion.current());
        assertThat(Files.readString(home.resolve("ARCH")).strip()).isIn("x86_64", "aarch64");
        assertThat(home.resolve("runtime/bin/java")).isExecutable();
        try (var jars = Files.list(home.resolve("lib"))) {
            List<String> names = jars.map(j -> j.getFileName().toString()).filter(n -> n.endsWith(".jar")).toList();
            assertThat(names).anyMatch(n -> n.startsWith("drover-agent-")).anyMatch(n -> n.startsWith("drover-dist-"))
                    .noneMatch(AgentLaunch::serverOnly);
        }

        Process version = packaged(home, "--version").redirectErrorStream(true).start();
        String out = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(version.waitFor()).as(out).isZero();
        assertThat(out.strip()).isEqualTo("drover-agent " + BuildVersion.current());

        Process unknown = packaged(home, "frobnicate").redirectErrorStream(true).start();
        String refused = new String(unknown.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(unknown.waitFor()).isEqualTo(2);
        assertThat(refused).contains("unknown command 'frobnicate'");
    }

    @Test
    void thePackagedAgentSignsInAndAnswersJobs() throws Exception {
        Path home = unpack(packageFile(), tmp);
        try (Fleet fleet = new Fleet(TestServer.start(), tmp.resolve("roots"))) {
            var master = fleet.server.server().master();
            Path log = tmp.resolve("agent.log");
            Process agent = packaged(home, "run", "--id", "packaged-1", "--master", "127.0.0.1:" + master.requestPort(),
                    "--publish-port", Integer.toString(master.publishPort()), "--root", tmp.resolve("root").toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("key", "list").out().contains("packaged-1  pending"));
                assertThat(fleet.drover("key", "accept", "packaged-1").exit()).isZero();
                await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "packaged-1", "test.ping", "--timeout", "3").exit() == 0);
                Fleet.Run cmd = fleet.drover("run", "packaged-1", "cmd.run", "echo from the package");
                assertThat(cmd.exit()).as(cmd.err()).isZero();
                assertThat(cmd.out()).contains("packaged-1:\n    from the package");
                String status = Files.readString(Path.of("/proc/" + agent.pid() + "/status"));
                System.out.println("packaged agent, after two jobs: " + status.lines().filter(l -> l.startsWith("VmRSS")).findFirst().orElse("?"));
            } catch (AssertionError | RuntimeException e) {
                AgentProcess.printTail(log);
                throw e;
            } finally {
                agent.destroy();
                agent.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    static String run(ProcessBuilder builder) throws Exception {
        Process p = builder.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() + "\n" + out;
    }

    /**
     * The way an operator puts the agent on a host, minus systemd (not PID 1 here): the package's own installer, under
     * a prefix, with an enrollment token from a file and the server's fingerprint pinned; it starts the agent, waits for
     * its sign-in, the agent links to its inventory host by address and answers jobs; uninstall --purge removes it.
     */
    @Test
    void theInstallerPutsTheAgentOnAHostWhereItSignsInLinksAndAnswersJobs() throws Exception {
        Path home = unpack(packageFile(), tmp);
        Path prefix = Files.createDirectories(tmp.resolve("host"));
        try (Fleet fleet = new Fleet(TestServer.start(), tmp.resolve("roots"))) {
            assertThat(fleet.drover("inventory", "import", "../examples/inventory/demo.yaml").exit()).isZero();
            String token = io.drover.model.Json.json().readTree(fleet.drover("enroll", "create", "pkg", "--biz", "2", "-o", "json")
                    .out()).path("token").asText();
            Path tokenFile = tmp.resolve("enroll.token");
            Files.writeString(tokenFile, token + "\n");
            String finger = fleet.drover("key", "finger", "--master").out().strip();
            var master = fleet.server.server().master();
            String installed = run(packaged(home, "install", "--prefix", prefix.toString(), "--service", "process",
                    "--id", "pkg-web", "--ip", "10.0.1.3", "--master", "127.0.0.1:" + master.requestPort(),
                    "--publish-port", Integer.toString(master.publishPort()), "--master-finger", finger,
                    "--enroll-token-file", tokenFile.toString(), "--wait-seconds", "60"));
            try {
                assertThat(installed).as(installed).startsWith("0\n").contains("installed as pkg-web and signed in");
                assertThat(Files.readString(prefix.resolve("etc/drover/agent.yaml"))).contains(finger).doesNotContain(token);
                await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "pkg-web", "test.ping", "--timeout", "3").exit() == 0);
                Fleet.Run cmd = fleet.drover("run", "pkg-web", "cmd.run", "echo installed");
                assertThat(cmd.out()).as(cmd.err()).contains("pkg-web:\n    installed");
                await().atMost(Duration.ofSeconds(10)).until(() -> io.drover.model.Json.json().readTree(
                        fleet.drover("agent", "list", "-o", "json").out()).get(0).path("bk_host_id").asLong() == 3);
                String status = run(packaged(home, "status", "--prefix", prefix.toString()));
                assertThat(status).as(status).startsWith("0\n").contains(BuildVersion.current()).contains("SIGNED_IN");
                String again = run(packaged(home, "install", "--prefix", prefix.toString(), "--service", "process",
                        "--id", "pkg-web", "--ip", "10.0.1.3", "--master", "127.0.0.1:" + master.requestPort(),
                        "--publish-port", Integer.toString(master.publishPort()), "--master-finger", finger,
                        "--enroll-token-file", tokenFile.toString()));
                assertThat(again).as(again).startsWith("0\n").contains("nothing changed");
            } finally {
                // as an operator would: the installed launcher removes the package it runs from
                Path installedLauncher = prefix.resolve("opt/drover-agent/current/bin/drover-agent");
                String removed = run(Files.exists(installedLauncher)
                        ? launcher(installedLauncher, "uninstall", "--prefix", prefix.toString(), "--purge")
                        : packaged(home, "uninstall", "--prefix", prefix.toString(), "--purge"));
                assertThat(removed).as(removed).startsWith("0\n").contains("removed").doesNotContain("jimage", "Exception");
            }
            assertThat(prefix.resolve("opt/drover-agent")).doesNotExist();
            assertThat(prefix.resolve("var/lib/drover-agent")).doesNotExist();
            await().atMost(Duration.ofSeconds(20)).until(() -> fleet.drover("run", "pkg-web", "test.ping", "--timeout", "2").exit() != 0);
        }
    }

    /**
     * A fleet upgrade as the server drives it, one host: the installed agent is asked ({@code agent.upgrade}) to move to
     * a package of another version from the server's files (the real package repacked with another VERSION); it hands
     * over to that package's installer, which restarts it; it comes back reporting the new version.
     */
    @Test
    void anInstalledAgentUpgradesItselfWhenTheServerAsks() throws Exception {
        Path home = unpack(packageFile(), tmp);
        Path prefix = Files.createDirectories(tmp.resolve("host"));
        try (Fleet fleet = new Fleet(TestServer.start(), tmp.resolve("roots"))) {
            assertThat(fleet.drover("inventory", "import", "../examples/inventory/demo.yaml").exit()).isZero();
            String token = io.drover.model.Json.json().readTree(fleet.drover("enroll", "create", "pkg", "--biz", "2", "-o", "json")
                    .out()).path("token").asText();
            Path tokenFile = tmp.resolve("enroll.token");
            Files.writeString(tokenFile, token + "\n");
            var master = fleet.server.server().master();
            String installed = run(packaged(home, "install", "--prefix", prefix.toString(), "--service", "process",
                    "--id", "pkg-up", "--ip", "10.0.1.3", "--master", "127.0.0.1:" + master.requestPort(),
                    "--publish-port", Integer.toString(master.publishPort()), "--enroll-token-file", tokenFile.toString(),
                    "--wait-seconds", "60"));
            Path upgradeLog = prefix.resolve("var/log/drover-agent/upgrade-9.9.9.log");
            try {
                assertThat(installed).as(installed).startsWith("0\n").contains("installed as pkg-up and signed in");
                await().atMost(Duration.ofSeconds(30)).until(() -> fleet.drover("run", "pkg-up", "test.version", "--timeout", "3")
                        .out().contains(BuildVersion.current()));

                Path repacked = repack(Files.createDirectories(tmp.resolve("repack")), "9.9.9");
                Fleet.Run uploaded = fleet.drover("agent-package", "upload", repacked.toString());
                assertThat(uploaded.exit()).as(uploaded.out() + uploaded.err()).isZero();
                assertThat(fleet.drover("agent", "list").out()).containsPattern("pkg-up .*" + java.util.regex.Pattern.quote(
                        BuildVersion.current()) + " \\(old: 9\\.9\\.9 available\\)");

                // the fleet upgrade: the server places the package in its files, the agent fetches and checks it, hands
                // over to the package's installer, and comes back reporting 9.9.9
                Fleet.Run upgraded = fleet.drover("agent", "upgrade", "--target", "pkg-up", "--version", "9.9.9",
                        "--batch-size", "1", "--wait-seconds", "150", "--wait");
                assertThat(upgraded.exit()).as(upgraded.out() + upgraded.err()).isZero();
                assertThat(upgraded.out()).contains("1 succeeded, 0 skipped, 0 failed, 0 not started");
                assertThat(fleet.drover("run", "pkg-up", "test.version", "--timeout", "5").out()).contains("9.9.9");
                assertThat(fleet.drover("agent", "list").out()).containsPattern("pkg-up .*9\\.9\\.9").doesNotContain("(old:");
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(upgradeLog).contains("exit status"));
                assertThat(Files.readString(upgradeLog)).contains("drover-agent upgraded from " + BuildVersion.current()
                        + " to 9.9.9 and signed in").contains("upgrade ended with exit status 0");
                String status = run(packaged(home, "status", "--prefix", prefix.toString()));
                assertThat(status).as(status).startsWith("0\n").contains("current:       9.9.9").contains("SIGNED_IN");
                assertThat(prefix.resolve("opt/drover-agent/.upgrade-9.9.9")).doesNotExist();
            } catch (AssertionError | RuntimeException e) {
                if (Files.exists(upgradeLog)) {
                    System.out.println("upgrade log:\n" + Files.readString(upgradeLog));
                }
                AgentProcess.printTail(prefix.resolve("var/log/drover-agent/agent.log"));
                throw e;
            } finally {
                Path installedLauncher = prefix.resolve("opt/drover-agent/current/bin/drover-agent");
                String removed = run(Files.exists(installedLauncher)
                        ? launcher(installedLauncher, "uninstall", "--prefix", prefix.toString(), "--purge")
                        : packaged(home, "uninstall", "--prefix", prefix.toString(), "--purge"));
                assertThat(removed).as(removed).startsWith("0\n").contains("removed");
            }
        }
    }
}

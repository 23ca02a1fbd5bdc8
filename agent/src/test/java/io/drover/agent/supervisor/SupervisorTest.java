package io.drover.agent.supervisor;

import io.drover.model.agentapi.ProcessSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {
    static final String SETUP = "/usr/local/gse/plugins/bin";
    static final Supervisor.Options FAST = new Supervisor.Options(Duration.ofSeconds(5), Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofMillis(50));

    @TempDir
    Path root;

    @BeforeEach
    void layout() throws IOException {
        Files.createDirectories(root.resolve(SETUP.substring(1)));
    }

    /** A process that writes its own pid file and ignores SIGHUP, like GSE plugins' start scripts. */
    static ProcessSpec sleeper(String name, boolean delegate) {
        return new ProcessSpec(name, SETUP, "/var/run/" + name + ".pid", null, daemon(name), null, null,
                "kill -HUP $(cat " + pidFromSetup(name) + ")", "echo 1.2.3", null, delegate);
    }

    static String pidFromSetup(String name) {
        return "../../../../../var/run/" + name + ".pid";
    }

    static String daemon(String name) {
        return "nohup sh -c 'echo $$ > " + pidFromSetup(name) + "; trap \"\" HUP; exec sleep 300' >/dev/null 2>&1 &";
    }

    static long pidOf(Map<String, Object> state) {
        return ((Number) state.get("pid")).longValue();
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, Duration max) {
        await().atMost(max).until(condition::getAsBoolean);
    }

    /** That {@code name} stays TERMINATED for {@code time}: the watcher leaves it alone. */
    static void staysTerminated(Supervisor s, String name, Duration time) {
        await().during(time).atMost(time.plusSeconds(2)).until(() -> call(s, name, "QUERY").get("status").equals("TERMINATED"));
    }

    static Map<String, Object> call(Supervisor s, String name, String op) {
        try {
            return s.operate(name, op);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    void startQueryReloadRestartStopAndUnregister() throws Exception {
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "UNREGISTER");
            supervisor.register(sleeper("exporter", false));
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "TERMINATED").containsEntry("pid", null);
            Map<String, Object> started = supervisor.operate("exporter", "START");
            assertThat(started).containsEntry("status", "RUNNING").containsEntry("version", "1.2.3");
            long pid = pidOf(started);
            assertThat(pidOf(supervisor.operate("exporter", "START"))).as("START of a running process is a no-op").isEqualTo(pid);
            assertThat(pidOf(supervisor.operate("exporter", "RELOAD"))).as("reload_cmd sent SIGHUP, which it ignores").isEqualTo(pid);

            long restarted = pidOf(supervisor.operate("exporter", "RESTART"));
            assertThat(restarted).isNotEqualTo(pid);
            assertThat(ProcessControl.alive(pid)).as("the old process is gone").isFalse();

            Map<String, Object> stopped = supervisor.operate("exporter", "STOP");
            assertThat(stopped).containsEntry("status", "TERMINATED");
            assertThat(ProcessControl.alive(restarted)).isFalse();
            assertThat(root.resolve("var/run/exporter.pid")).doesNotExist();
            assertThat(supervisor.operate("exporter", "STOP")).as("STOP of a stopped process succeeds").containsEntry("status", "TERMINATED");
            assertThatThrownBy(() -> supervisor.operate("exporter", "RELOAD")).hasMessageContaining("not running");

            assertThat(supervisor.unregister("exporter")).isTrue();
            assertThat(supervisor.unregister("exporter")).isFalse();
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "UNREGISTER");
            assertThat(root.resolve("state/procs/exporter.json")).doesNotExist();
            assertThatThrownBy(() -> supervisor.operate("exporter", "START")).hasMessageContaining("'exporter' is not registered");
            assertThatThrownBy(() -> new ProcessControl(root, root, FAST, Clock.systemUTC()).under("../../etc"))
                    .hasMessageContaining("leaves the agent root");
        }
    }

    @Test
    void withoutAReloadCommandReloadRestarts() throws Exception {
        ProcessSpec spec = new ProcessSpec("noreload", SETUP, "/var/run/noreload.pid", null, daemon("noreload"), null, null,
                null, null, null, false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(spec);
            long pid = pidOf(supervisor.operate("noreload", "START"));
            long reloaded = pidOf(supervisor.operate("noreload", "RELOAD"));
            assertThat(reloaded).isNotEqualTo(pid);
            assertThat(ProcessControl.alive(pid)).isFalse();
            supervisor.operate("noreload", "STOP");
        }
    }

    @Test
    void aDelegatedProcessIsRestartedAfterKillAndReadoptedAfterAnAgentRestart() throws Exception {
        long first;
        long second;
        java.util.List<String> died = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC(), died::add)) {
            supervisor.register(sleeper("keeper", true));
            first = pidOf(supervisor.operate("keeper", "START"));
            kill(first);
            awaitTrue(() -> {
                Map<String, Object> q = call(supervisor, "keeper", "QUERY");
                return q.get("status").equals("RUNNING") && pidOf(q) != first;
            }, Duration.ofSeconds(5));
            second = pidOf(supervisor.operate("keeper", "QUERY"));
        }
        assertThat(died).as("the death is reported once, before the restart").containsExactly("keeper");
        try (Supervisor again = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            Map<String, Object> adopted = again.operate("keeper", "QUERY");
            assertThat(adopted).containsEntry("status", "RUNNING").containsEntry("delegate", true);
            assertThat(pidOf(adopted)).as("the running process is adopted, not started again").isEqualTo(second);
        }
        // Dies while no agent runs: the next agent starts it again.
        kill(second);
        awaitTrue(() -> !ProcessControl.alive(second), Duration.ofSeconds(5));
        try (Supervisor third = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            awaitTrue(() -> call(third, "keeper", "QUERY").get("status").equals("RUNNING"), Duration.ofSeconds(5));
            third.operate("keeper", "UNDELEGATE");
            long pid = pidOf(third.operate("keeper", "QUERY"));
            kill(pid);
            awaitTrue(() -> !ProcessControl.alive(pid), Duration.ofSeconds(5));
            staysTerminated(third, "keeper", Duration.ofMillis(800));
            assertThat(third.operate("keeper", "QUERY")).as("undelegated: not restarted").containsEntry("delegate", false);
        }
    }

    @Test
    void stopHoldsTheWatcherOffUntilTheNextStart() throws Exception {
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(sleeper("held", true));
            assertThat(supervisor.operate("held", "QUERY")).as("registering does not start it").containsEntry("status", "TERMINATED");
            staysTerminated(supervisor, "held", Duration.ofMillis(500));
            supervisor.operate("held", "START");
            assertThat(supervisor.operate("held", "STOP")).containsEntry("status", "TERMINATED");
            staysTerminated(supervisor, "held", Duration.ofMillis(800)); // a stopped delegated process stays stopped
            assertThat(supervisor.operate("held", "QUERY")).containsEntry("delegate", true);
        }
        try (Supervisor again = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            staysTerminated(again, "held", Duration.ofMillis(800)); // also after an agent restart
            long pid = pidOf(again.operate("held", "START"));
            kill(pid);
            awaitTrue(() -> call(again, "held", "QUERY").get("status").equals("RUNNING"), Duration.ofSeconds(5));
            again.operate("held", "STOP");
        }
    }

    /** The system clock plus an offset the test moves forward. */
    static final class SteppedClock extends Clock {
        private final java.util.concurrent.atomic.AtomicLong offsetMs = new java.util.concurrent.atomic.AtomicLong();

        void advance(Duration d) {
            offsetMs.addAndGet(d.toMillis());
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.ofEpochMilli(millis());
        }

        @Override
        public long millis() {
            return System.currentTimeMillis() + offsetMs.get();
        }
    }

    static long starts(Path log) {
        try {
            return Files.readAllLines(log).size();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aDyingDelegatedProcessIsStartedAgainAfterABackoffThatDoublesOnTheClock() throws Exception {
        // Each start appends a line, then the process dies at once.
        ProcessSpec dying = new ProcessSpec("dying", SETUP, "/var/run/dying.pid", null,
                "echo start >> starts.log; sh -c 'echo $$ > " + pidFromSetup("dying") + "; exec sleep 0.3' >/dev/null 2>&1 &",
                null, null, null, null, null, true);
        Supervisor.Options hours = new Supervisor.Options(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofHours(1), Duration.ofHours(3), Duration.ofHours(10), Duration.ofMillis(20));
        SteppedClock clock = new SteppedClock();
        Path log = root.resolve(SETUP.substring(1)).resolve("starts.log");
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, hours, clock)) {
            supervisor.register(dying);
            supervisor.operate("dying", "START");
            for (Duration backoff : java.util.List.of(Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(3), Duration.ofHours(3))) {
                long startsBefore = Files.readAllLines(log).size();
                awaitTrue(() -> supervisor.restartDueAt("dying") != 0, Duration.ofSeconds(5));
                long due = supervisor.restartDueAt("dying");
                assertThat(due - clock.millis()).as("waits %s", backoff).isBetween(backoff.toMillis() - 5_000, backoff.toMillis());
                clock.advance(backoff.minusMinutes(1));
                await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2))
                        .until(() -> starts(log) == startsBefore);
                clock.advance(Duration.ofMinutes(2));
                awaitTrue(() -> starts(log) == startsBefore + 1, Duration.ofSeconds(5));
            }
            supervisor.operate("dying", "UNDELEGATE");
        }
    }

    @Test
    void failingCommandsAreErrorsThatSayWhy() throws Exception {
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(new ProcessSpec("broken", SETUP, "/var/run/broken.pid", null, "echo no config >&2; exit 3",
                    null, null, null, null, null, false));
            assertThatThrownBy(() -> supervisor.operate("broken", "START")).isInstanceOf(IOException.class)
                    .hasMessageContaining("exited with 3").hasMessageContaining("no config");

            supervisor.register(new ProcessSpec("nopid", SETUP, "/var/run/nopid.pid", null, "true",
                    null, null, null, null, null, false));
            assertThatThrownBy(() -> supervisor.operate("nopid", "START")).hasMessageContaining("names no running process");

            supervisor.register(new ProcessSpec("badreload", SETUP, "/var/run/badreload.pid", null, daemon("badreload"),
                    null, null, "echo bad config; exit 1", null, null, false));
            supervisor.operate("badreload", "START");
            assertThatThrownBy(() -> supervisor.operate("badreload", "RELOAD")).hasMessageContaining("reload_cmd")
                    .hasMessageContaining("exited with 1: bad config");
            supervisor.operate("badreload", "STOP");

            supervisor.register(new ProcessSpec("elsewhere", "/opt/missing", "/var/run/elsewhere.pid", null, "true",
                    null, null, null, null, null, false));
            assertThatThrownBy(() -> supervisor.operate("elsewhere", "START")).hasMessageContaining("is not a directory");

            assertThatThrownBy(() -> supervisor.register(new ProcessSpec("../escape", SETUP, "/var/run/x.pid", null, "true",
                    null, null, null, null, null, false))).hasMessageContaining("process name");
            assertThatThrownBy(() -> supervisor.register(new ProcessSpec("x", SETUP, "/../../x.pid", null, "true",
                    null, null, null, null, null, false))).hasMessageContaining("leaves the agent root");
            assertThatThrownBy(() -> supervisor.register(new ProcessSpec("x", SETUP, "/var/run/x.pid", null, " ",
                    null, null, null, null, null, false))).hasMessageContaining("'start_cmd' is required");
            assertThatThrownBy(() -> supervisor.operate("broken", "EXPLODE")).hasMessageContaining("unknown operation");
        }
    }

    @Test
    void aCommandThatLeavesABackgroundProcessDoesNotHang() throws Exception {
        // restart_cmd starts the new process without redirecting its output: it keeps the command's stdout open.
        ProcessSpec spec = new ProcessSpec("chatty", SETUP, "/var/run/chatty.pid", null, daemon("chatty"), null,
                "kill $(cat " + pidFromSetup("chatty") + "); sh -c 'echo $$ > " + pidFromSetup("chatty") + "; exec sleep 300' &",
                null, null, null, false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(spec);
            long pid = pidOf(supervisor.operate("chatty", "START"));
            long began = System.nanoTime();
            long restarted = pidOf(supervisor.operate("chatty", "RESTART"));
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(3));
            assertThat(restarted).isNotEqualTo(pid);
            supervisor.operate("chatty", "STOP");
            assertThat(ProcessControl.alive(restarted)).isFalse();
        }
    }

    @Test
    void stopWaitsForAProcessThatTakesTimeToExit() throws Exception {
        ProcessSpec slow = new ProcessSpec("slow", SETUP, "/var/run/slow.pid", null,
                "nohup sh -c 'echo $$ > " + pidFromSetup("slow") + "; trap \"sleep 0.7; exit 0\" TERM; "
                        + "while :; do sleep 0.1; done' >/dev/null 2>&1 &",
                "kill $(cat " + pidFromSetup("slow") + ")", null, null, null, null, false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(slow);
            long pid = pidOf(supervisor.operate("slow", "START"));
            assertThat(supervisor.operate("slow", "STOP")).containsEntry("status", "TERMINATED");
            assertThat(ProcessControl.alive(pid)).as("STOP answers once the process is gone").isFalse();
        }
        // A process that ignores its stop command is terminated with signals after the grace period.
        ProcessSpec stubborn = new ProcessSpec("stubborn", SETUP, "/var/run/stubborn.pid", null, daemon("stubborn"),
                "true", null, null, null, null, false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(stubborn);
            long pid = pidOf(supervisor.operate("stubborn", "START"));
            assertThat(supervisor.operate("stubborn", "STOP")).containsEntry("status", "TERMINATED");
            assertThat(ProcessControl.alive(pid)).isFalse();
        }
    }

    @Test
    void healthAndVersionAreReportedWhileRunning() throws Exception {
        ProcessSpec spec = new ProcessSpec("checked", SETUP, "/var/run/checked.pid", null, daemon("checked"), null, null,
                null, "printf 'v2\\n'", "test -f healthy", false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(spec);
            assertThat(supervisor.operate("checked", "QUERY")).containsEntry("healthy", false).containsEntry("version", null);
            supervisor.operate("checked", "START");
            assertThat(supervisor.operate("checked", "QUERY")).containsEntry("healthy", false).containsEntry("version", "v2");
            Files.writeString(root.resolve(SETUP.substring(1)).resolve("healthy"), "");
            assertThat(supervisor.operate("checked", "QUERY")).containsEntry("healthy", true);
            supervisor.operate("checked", "STOP");
        }
    }

    @Test
    void unreadableRegistrationsAreSkipped() throws Exception {
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(sleeper("good", false));
        }
        Files.writeString(root.resolve("state/procs/bad.json"), "{not json", StandardCharsets.UTF_8);
        Files.writeString(root.resolve("state/procs/other.json"), Files.readString(root.resolve("state/procs/good.json")));
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            assertThat(supervisor.operate("good", "QUERY")).containsEntry("status", "TERMINATED");
            assertThat(supervisor.operate("bad", "QUERY")).containsEntry("status", "UNREGISTER");
            assertThat(supervisor.operate("other", "QUERY")).as("a file must register its own name").containsEntry("status", "UNREGISTER");
            assertThat(supervisor.spec("good")).get().extracting(ProcessSpec::versionCmd).isEqualTo("echo 1.2.3");
        }
    }

    @Test
    void stalePidFilesNameNoProcess() throws Exception {
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(sleeper("stale", false));
            Path pidFile = Files.createDirectories(root.resolve("var/run")).resolve("stale.pid");
            for (String content : new String[] {"1\n", ProcessHandle.current().pid() + "\n", "garbage", "", "99999999"}) {
                Files.writeString(pidFile, content);
                assertThat(supervisor.operate("stale", "QUERY")).as(content).containsEntry("status", "TERMINATED");
            }
            assertThat(supervisor.operate("stale", "STOP")).as("never signals pid 1 or the agent").containsEntry("status", "TERMINATED");
        }
    }

    @Test
    void aZombieIsNotAlive() throws Exception {
        // The inner sleep exits at once; its parent exec'd into a sleep that never reaps it: a zombie for a few seconds.
        Process parent = new ProcessBuilder("/bin/sh", "-c", "sleep 0.2 & echo $!; exec sleep 3").start();
        try {
            long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream())).readLine().strip());
            awaitTrue(() -> {
                try {
                    String stat = Files.readString(Path.of("/proc/" + zombie + "/stat"));
                    return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
                } catch (IOException e) {
                    return false;
                }
            }, Duration.ofSeconds(2));
            assertThat(ProcessHandle.of(zombie).map(ProcessHandle::isAlive)).as("the JDK calls it alive").contains(true);
            assertThat(ProcessControl.alive(zombie)).isFalse();
        } finally {
            parent.destroyForcibly();
        }
    }

    @Test
    void commandsRunAsTheRegisteredUserWhenTheAgentIsRoot() throws Exception {
        assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")), "runs as root");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/runuser")) || Files.isExecutable(Path.of("/sbin/runuser")), "has runuser");
        assumeTrue(new ProcessBuilder("id", "nobody").start().waitFor() == 0, "has user nobody");
        // nobody must be able to reach the setup and pid directories
        for (Path p = root.resolve("usr/local/gse/plugins/bin"); p.startsWith(root); p = p.getParent()) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(Files.createDirectories(root.resolve("var/run")), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(root.resolve("var"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessSpec spec = new ProcessSpec("asnobody", SETUP, "/var/run/asnobody.pid", "nobody", daemon("asnobody"), null,
                null, null, "id -un", null, false);
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root, FAST, Clock.systemUTC())) {
            supervisor.register(spec);
            Map<String, Object> started = supervisor.operate("asnobody", "START");
            assertThat(started).containsEntry("status", "RUNNING").containsEntry("version", "nobody");
            assertThat(ProcessHandle.of(pidOf(started)).flatMap(h -> h.info().user())).contains("nobody");
            supervisor.operate("asnobody", "STOP");
        }
    }
}

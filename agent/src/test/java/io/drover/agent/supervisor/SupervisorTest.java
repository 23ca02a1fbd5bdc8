package io.drover.agent.supervisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {
    @TempDir
    Path root;

    /** A process that writes its own pid file, like GSE plugins' start scripts do. */
    static ProcessSpec sleeper(String name, boolean delegate) {
        return new ProcessSpec(name, "/usr/local/gse/plugins/bin", "/var/run/" + name + ".pid", null,
                "nohup sh -c 'echo $$ > ../../../../../var/run/" + name + ".pid; trap \"\" HUP; exec sleep 300' >/dev/null 2>&1 &",
                null, null, null, "echo 1.2.3", null, delegate);
    }

    static long pidOf(Map<String, Object> state) {
        return ((Number) state.get("pid")).longValue();
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + max);
            }
            Thread.sleep(100);
        }
    }

    @Test
    void startQueryReloadRestartStopAndUnregister() throws Exception {
        Files.createDirectories(root.resolve("var/run"));
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root)) {
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "UNREGISTER");
            supervisor.register(sleeper("exporter", false));
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "TERMINATED");
            awaitTrue(() -> call(supervisor, "exporter", "START").get("status").equals("RUNNING"), Duration.ofSeconds(5));
            Map<String, Object> running = supervisor.operate("exporter", "QUERY");
            assertThat(running).containsEntry("version", "1.2.3");
            long pid = pidOf(running);
            assertThat(ProcessHandle.of(pid)).isPresent();
            assertThat(pidOf(supervisor.operate("exporter", "RELOAD"))).as("SIGHUP is ignored by this process").isEqualTo(pid);
            supervisor.operate("exporter", "RESTART");
            awaitTrue(() -> call(supervisor, "exporter", "QUERY").get("status").equals("RUNNING"), Duration.ofSeconds(5));
            assertThat(pidOf(supervisor.operate("exporter", "QUERY"))).isNotEqualTo(pid);
            assertThat(ProcessHandle.of(pid)).as("the old process is gone").isEmpty();
            Map<String, Object> stopped = supervisor.operate("exporter", "STOP");
            assertThat(stopped).containsEntry("status", "TERMINATED");
            assertThat(supervisor.unregister("exporter")).isTrue();
            assertThat(supervisor.operate("exporter", "QUERY")).containsEntry("status", "UNREGISTER");
            assertThatThrownBy(() -> supervisor.under("../../etc")).hasMessageContaining("leaves the agent root");
        }
    }

    @Test
    void aDelegatedProcessIsRestartedAfterKillAndReadoptedAfterAnAgentRestart() throws Exception {
        Files.createDirectories(root.resolve("var/run"));
        long first;
        try (Supervisor supervisor = new Supervisor(root.resolve("state"), root)) {
            supervisor.register(sleeper("keeper", true));
            awaitTrue(() -> call(supervisor, "keeper", "QUERY").get("status").equals("RUNNING"), Duration.ofSeconds(10));
            first = pidOf(supervisor.operate("keeper", "QUERY"));
            ProcessHandle.of(first).orElseThrow().destroyForcibly();
            awaitTrue(() -> {
                Map<String, Object> q = call(supervisor, "keeper", "QUERY");
                return q.get("status").equals("RUNNING") && pidOf(q) != first;
            }, Duration.ofSeconds(10));
        }
        try (Supervisor again = new Supervisor(root.resolve("state"), root)) {
            Map<String, Object> adopted = again.operate("keeper", "QUERY");
            assertThat(adopted).containsEntry("status", "RUNNING").containsEntry("delegate", true);
            again.operate("keeper", "UNDELEGATE");
            again.operate("keeper", "STOP");
            Thread.sleep(1500);
            assertThat(again.operate("keeper", "QUERY")).as("undelegated: not restarted").containsEntry("status", "TERMINATED");
        }
    }

    static Map<String, Object> call(Supervisor s, String name, String op) {
        try {
            return s.operate(name, op);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}

package io.drover.dist;

import static io.drover.dist.AmqpPlansEndToEndTest.URL;
import static io.drover.dist.AmqpPlansEndToEndTest.brokerReachable;
import static io.drover.dist.AmqpPlansEndToEndTest.plan;
import static io.drover.dist.AmqpPlansEndToEndTest.withChannel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import io.drover.model.plans.PlanJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plans over the real RabbitMQ at 127.0.0.1:5672 to an agent process with no Drover server (AMQP only), killed with
 * SIGKILL mid-plan: a plan cut short is run again from the start once, then answered with 1; reboots beyond
 * {@code expectReboots} are answered, not looped; a stale Stamp is answered. Plans here never log, so only results
 * arrive on the result queue. Fails, not skips, under CI when the broker is missing.
 */
class AmqpPlanRestartTest {
    @TempDir
    Path dir;
    Process agent;
    String inputQueue;
    String resultQueue;

    @BeforeEach
    void start() throws Exception {
        boolean reachable = brokerReachable();
        if (!reachable && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but RabbitMQ is not reachable at 127.0.0.1:5672; the AMQP tests must run in CI");
        }
        assumeTrue(reachable, "RabbitMQ is not reachable at 127.0.0.1:5672");
        String suffix = Long.toString(System.nanoTime(), 36);
        inputQueue = "drover-test-plans-" + suffix;
        resultQueue = "drover-test-results-" + suffix;
        withChannel(c -> {
            c.queueDeclare(inputQueue, true, false, false, Map.of("x-expires", 600_000));
            c.queueDeclare(resultQueue, true, false, false, Map.of("x-expires", 600_000));
        });
        agent = startAgent();
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            AgentProcess.kill(agent);
        }
        AgentProcess.printTail(dir.resolve("agent.log"));
        if (inputQueue != null && brokerReachable()) {
            withChannel(c -> {
                c.queueDelete(inputQueue);
                c.queueDelete(resultQueue);
            });
        }
    }

    Process startAgent() throws Exception {
        return AgentProcess.startAmqpOnly("amqp-only", dir.resolve("host"), dir.resolve("agent.log"), "--amqp-url", URL,
                "--amqp-queue", inputQueue, "--amqp-result-routing-key", resultQueue, "--amqp-allow-unsigned");
    }

    @Test
    void anAgentWithoutAServerRunsPlansAndSaysWhyFileserverFilesCannotCome() throws Exception {
        publish("m-ok", plan("return s().stdout", "echo over amqp only"));
        Map<String, Object> fileserver = plan("return s()", "cat pkg.txt");
        fileserver.put("Files", Map.of("f", Map.of("Name", "s.sh", "BodyType", "Text", "Body", "cat pkg.txt"),
                "pkg", Map.of("Name", "pkg.txt", "Type", "Downloadable", "URL", "salt://pkg.txt", "Sha256", "ab".repeat(32))));
        fileserver.put("Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f", "Files", List.of("pkg"))));
        publish("m-salt", fileserver);

        List<Message> got = receive(2);
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "over amqp only");
        assertThat(got.get(1).body()).containsEntry("ErrorCode", 8);
        assertThat(String.valueOf(got.get(1).body().get("Body"))).contains("takes plans over AMQP only (no --master)");
    }

    @Test
    void aPlanCutShortByACrashRunsAgainOnceThenIsAnsweredWith1() throws Exception {
        Path marker = dir.resolve("runs.txt");
        publish("m-long", plan("return s()", "echo run >> " + marker + "\nsleep 60"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(marker) == 1);
        AgentProcess.kill(agent);
        publish("m-after", plan("return 'after'", null));
        agent = startAgent();
        await().atMost(Duration.ofSeconds(30)).alias("run again from the start").until(() -> lines(marker) == 2);
        AgentProcess.kill(agent);
        agent = startAgent();

        List<Message> got = receive(2);
        assertThat(got.get(0).messageId()).isEqualTo("m-long");
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 1);
        assertThat(String.valueOf(got.get(0).body().get("Body"))).contains("again after it was restarted from the start");
        assertThat(got.get(1).messageId()).isEqualTo("m-after");
        assertThat(got.get(1).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "after");
        assertThat(Files.readAllLines(marker)).as("run twice, never a third time").hasSize(2);
    }

    @Test
    void aPlanRestartedOnceFinishesNormally() throws Exception {
        Path marker = dir.resolve("runs.txt");
        publish("m-once", plan("return s().stdout", "echo run >> " + marker + "\n[ $(wc -l < " + marker + ") -ge 2 ] || sleep 60\n"
                + "echo finished"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(marker) == 1);
        AgentProcess.kill(agent);
        agent = startAgent();
        Message result = receive(1).getFirst();
        assertThat(result.messageId()).isEqualTo("m-once");
        assertThat(result.body()).containsEntry("ErrorCode", 0).containsEntry("Body", "finished");
    }

    @Test
    void rebootsAreCountedAcrossRunsAndOneBeyondExpectRebootsIsAnswered() throws Exception {
        Map<String, Object> looping = plan("api.expectReboots(2)\nn = (api.getState('runs') or 0) + 1\napi.setState('runs', n)\n"
                + "api.waitReboot(120)\nreturn n", null);
        looping.put("Service", "svc-loop");
        publish("m-loop", looping);
        for (int reboots = 0; reboots <= 2; reboots++) {
            int done = reboots;
            await().atMost(Duration.ofSeconds(30)).alias("waiting for reboot " + (done + 1)).until(() -> waiting(2, done));
            AgentProcess.kill(agent);
            agent = startAgent();
        }
        Message result = receive(1).getFirst();
        assertThat(result.messageId()).isEqualTo("m-loop");
        assertThat(result.body()).containsEntry("ErrorCode", 1);
        assertThat(String.valueOf(result.body().get("Body"))).contains("restarted after 2 reboot(s)", "over its limit of 2");

        Map<String, Object> twice = plan("api.expectReboots(2)\nn = (api.getState('runs') or 0) + 1\napi.setState('runs', n)\n"
                + "if n < 3:\n    api.waitReboot(120)\nreturn n", null);
        twice.put("Service", "svc-twice");
        publish("m-twice", twice);
        for (int reboots = 0; reboots < 2; reboots++) {
            int done = reboots;
            await().atMost(Duration.ofSeconds(30)).until(() -> waiting(2, done));
            AgentProcess.kill(agent);
            agent = startAgent();
        }
        Message ok = receive(1).getFirst();
        assertThat(ok.body()).as("two reboots are within expectReboots(2)").containsEntry("ErrorCode", 0).containsEntry("Body", 3);
    }

    @Test
    void aStaleStampIsAnsweredNamingIt() throws Exception {
        Path marker = dir.resolve("runs.txt");
        Map<String, Object> five = plan("return s().stdout", "echo five >> " + marker + "; echo five");
        five.put("Stamp", 5);
        publish("m-five", five);
        Map<String, Object> older = plan("return s()", "echo three >> " + marker);
        older.put("ID", "plan-three");
        older.put("Stamp", 3);
        publish("m-three", older);
        Map<String, Object> same = plan("return s()", "echo again >> " + marker);
        same.put("Stamp", 5);
        publish("m-same", same);

        List<Message> got = receive(3);
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "five");
        assertThat(got.get(1).messageId()).isEqualTo("m-three");
        assertThat(got.get(1).body()).containsEntry("ErrorCode", 2).containsEntry("SourceID", "plan-three");
        assertThat(String.valueOf(got.get(1).body().get("Body"))).contains("The plan's Stamp 3 is not newer", "(5)");
        assertThat(got.get(2).body()).containsEntry("ErrorCode", 2);
        assertThat(Files.readAllLines(marker)).containsExactly("five");
    }

    /** Whether the agent's one stored plan waits for a reboot with this limit, after this many reboots. */
    private boolean waiting(int limit, int reboots) throws Exception {
        Path inbox = dir.resolve("host/var/lib/drover-agent/plans/amqp/inbox");
        if (!Files.isDirectory(inbox)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(inbox)) {
            for (Path file : files.filter(p -> p.getFileName().toString().equals("restarts")).toList()) {
                Map<?, ?> state = (Map<?, ?>) PlanJson.read(Files.readAllBytes(file));
                if (Integer.valueOf(limit).equals(state.get("waitingLimit")) && Integer.valueOf(reboots).equals(state.get("reboots"))) {
                    return true;
                }
            }
        } catch (java.io.UncheckedIOException | java.io.IOException e) {
            return false; // a file replaced while read
        }
        return false;
    }

    private static long lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    record Message(String messageId, Map<String, Object> body) {
    }

    void publish(String messageId, Object plan) throws Exception {
        byte[] body = PlanJson.write(plan).getBytes(StandardCharsets.UTF_8);
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId(messageId)
                .deliveryMode(2).build(), body));
    }

    /** The next {@code count} messages on the result queue, in order. */
    @SuppressWarnings("unchecked")
    List<Message> receive(int count) {
        List<Message> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
            try {
                withChannel(c -> {
                    GetResponse r;
                    while (got.size() < count && (r = c.basicGet(resultQueue, true)) != null) {
                        got.add(new Message(r.getProps().getMessageId(), (Map<String, Object>) PlanJson.read(r.getBody())));
                    }
                });
            } catch (Exception e) {
                return false;
            }
            return got.size() >= count;
        });
        return got;
    }
}

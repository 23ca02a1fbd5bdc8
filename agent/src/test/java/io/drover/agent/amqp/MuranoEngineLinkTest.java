package io.drover.agent.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.drover.agent.plans.PlanService;
import io.drover.agent.plans.PlanSetup;
import io.drover.agent.plans.SaltStackExecutor;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's AMQP link driven by an emulation of Murano's engine ({@link MuranoEngine}) through the real RabbitMQ at
 * 127.0.0.1:5672: log messages never complete a plan, results come back in the shapes the engine reads, and the
 * link recovers from its plan queue deleted and declared again, from a confirm that times out, and from a result
 * queue that does not exist yet, with no result lost. Fails, not skips, under CI when the broker is missing.
 */
class MuranoEngineLinkTest {
    static final String URL = "amqp://guest:guest@127.0.0.1:5672/%2f";

    @TempDir
    Path dir;
    String planQueue;
    String resultsQueue;
    String logQueue;
    Connection admin;
    AmqpChannel agent;
    MuranoEngine engine;
    /** Confirms still to fail as amqp-client's waitForConfirmsOrDie does on a timeout; how many did. */
    final AtomicInteger timeoutsToInject = new AtomicInteger();
    final AtomicInteger timeoutsInjected = new AtomicInteger();
    long stamp = 1_000;

    @BeforeEach
    void start() throws Exception {
        boolean reachable = brokerReachable();
        if (!reachable && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but RabbitMQ is not reachable at 127.0.0.1:5672; the AMQP tests must run in CI");
        }
        assumeTrue(reachable, "RabbitMQ is not reachable at 127.0.0.1:5672");
        String suffix = Long.toString(System.nanoTime(), 36);
        planQueue = "drover-test-murano-plans-" + suffix;
        resultsQueue = "-execution-results-drover-test-" + suffix;
        logQueue = "drover-test-murano-logs-" + suffix;
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URL);
        admin = factory.newConnection("test-admin");
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (admin != null) {
            try (Channel c = admin.createChannel()) {
                c.queueDelete(planQueue);
                c.queueDelete(resultsQueue);
                c.queueDelete(logQueue);
            }
            admin.close();
        }
    }

    @Test
    void tenPlansThatLogFailAndSucceedEachGetTheirOwnOutcomeThroughAQueueDeletionAndAConfirmTimeout() throws Exception {
        declareAsTheEngine(planQueue);
        declareAsTheEngine(resultsQueue);
        declareAsTheEngine(logQueue);
        startAgent();
        engine = new MuranoEngine(URL, planQueue, resultsQueue);

        List<CompletableFuture<MuranoEngine.Outcome>> outcomes = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        outcomes.add(call(ids, plan("api.logInfo('one')\nreturn 'ok-1'", null)));
        outcomes.add(call(ids, plan("api.logError('about to fail')\nraise ValueError('bad value')", null)));
        outcomes.add(call(ids, plan("api.logInfo('running the script')\nreturn s()", "exit 3")));
        outcomes.add(call(ids, plan("api.logInfo('a map')\nreturn {'a': 1, 'b': [1, 2]}", null)));
        outcomes.add(call(ids, plan("api.logInfo('slow')\nreturn s()['stdout']", "sleep 4; echo slow")));

        // Plan 5 has logged and sleeps: its log is confirmed, so the next confirm is its result's.
        await().atMost(Duration.ofSeconds(60)).until(() -> logs().stream().anyMatch(m -> "slow".equals(m.get("Body"))));
        await().atMost(Duration.ofSeconds(10)).until(this::outboxEmpty);
        timeoutsToInject.set(1);
        try (Channel c = admin.createChannel()) {
            c.queueDelete(planQueue);
        }
        declareAsTheEngine(planQueue);
        await("the agent subscribed again to the declared queue").atMost(Duration.ofSeconds(30))
                .until(() -> consumers(planQueue) == 1);

        outcomes.add(call(ids, plan("api.setExitCode(7)\nreturn 'partial'", null)));
        Map<String, Object> deploy = plan("return 1", null);
        deploy.put("Action", "Deploy");
        outcomes.add(call(ids, deploy));
        Map<String, Object> vCurrent = new LinkedHashMap<>(Map.of("Commands", List.of(Map.of("Name", "Get-Date")), "Stamp", ++stamp));
        outcomes.add(call(ids, vCurrent));
        outcomes.add(call(ids, plan("api.logWarning('nothing to return')\nreturn None", null)));
        outcomes.add(call(ids, plan("for i in range(5):\n    api.logInfo('line %d' % i)\nreturn 10", null)));

        List<MuranoEngine.Outcome> got = new ArrayList<>();
        for (CompletableFuture<MuranoEngine.Outcome> outcome : outcomes) {
            got.add(outcome.get(120, TimeUnit.SECONDS));
        }
        assertThat(got.get(0)).isEqualTo(new MuranoEngine.Outcome("ok-1", null));
        assertThat(got.get(1).error()).containsEntry("errorCode", 1).containsEntry("message", "bad value");
        assertThat(got.get(2).error()).containsEntry("errorCode", 100);
        assertThat(got.get(3)).isEqualTo(new MuranoEngine.Outcome(Map.of("a", 1, "b", List.of(1, 2)), null));
        assertThat(got.get(4).failed()).isFalse();
        assertThat(String.valueOf(got.get(4).value()).strip()).isEqualTo("slow");
        assertThat(got.get(5).error()).containsEntry("errorCode", 107);
        assertThat(got.get(6).error()).containsEntry("errorCode", 2);
        assertThat(got.get(7).error()).as("vCurrent: the plan could not run here (no pwsh), read by _process_v1_result")
                .containsEntry("type", "ExecutionPlanError").containsEntry("source", "execution_plan")
                .containsEntry("command", null);
        assertThat(String.valueOf(got.get(7).error().get("message"))).contains("pwsh");
        assertThat(got.get(8)).isEqualTo(new MuranoEngine.Outcome(null, null));
        assertThat(got.get(9)).isEqualTo(new MuranoEngine.Outcome(10, null));

        assertThat(timeoutsInjected.get()).as("the injected confirm timeout happened").isEqualTo(1);
        assertThat(engine.dropped).as("only plan 5's result, published before its confirm timed out, came twice")
                .extracting(m -> (Object) m.get("SourceID")).containsExactly(ids.get(4));

        List<Map<?, ?>> logs = logs();
        assertThat(logs).extracting(m -> (Object) m.get("Body")).containsExactly("one", "about to fail", "running the script", "a map",
                "slow", "nothing to return", "line 0", "line 1", "line 2", "line 3", "line 4");
        assertThat(logs).allSatisfy(m -> assertThat(m.get("Action")).isEqualTo("log"));
        assertThat(logs.getFirst().get("SourceID")).isEqualTo(ids.getFirst());
    }

    @Test
    void withoutALogKeyLogMessagesAreNotSentAndNoneReachesTheResults() throws Exception {
        declareAsTheEngine(planQueue);
        declareAsTheEngine(resultsQueue);
        agent = new AmqpChannel(settings(null), planService(), dir.resolve("state"), Clock.systemUTC());
        engine = new MuranoEngine(URL, planQueue, resultsQueue);
        List<String> ids = new ArrayList<>();
        MuranoEngine.Outcome outcome = call(ids, plan("api.logInfo('hello')\nreturn 'result'", null)).get(60, TimeUnit.SECONDS);
        assertThat(outcome).isEqualTo(new MuranoEngine.Outcome("result", null));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> engine.dropped.isEmpty());
    }

    @Test
    void aResultWithNoQueueToGoToStaysInTheOutboxUntilTheQueueExistsWhileLogsNoQueueTakesAreDropped() throws Exception {
        declareAsTheEngine(planQueue);
        startAgent();
        String id = UUID.randomUUID().toString().replace("-", "");
        Map<String, Object> plan = plan("api.logInfo('nobody reads this')\nreturn 'kept'", null);
        plan.put("ID", id);
        try (Channel c = admin.createChannel()) {
            c.basicPublish("", planQueue, new com.rabbitmq.client.AMQP.BasicProperties.Builder().messageId(id).build(), PlanJson.bytes(plan));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> !outboxEmpty());
        await("returned by the broker, so kept").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> !outboxEmpty());

        try (Stream<Path> files = Files.list(dir.resolve("state/plans/amqp/outbox"))) {
            assertThat(files.toList()).as("the result only: the returned log message was dropped").hasSize(1);
        }
        declareAsTheEngine(resultsQueue);
        await().atMost(Duration.ofSeconds(30)).until(this::outboxEmpty);
        try (Channel c = admin.createChannel()) {
            GetResponse result = c.basicGet(resultsQueue, true);
            assertThat(result).isNotNull();
            assertThat(result.getProps().getMessageId()).isEqualTo(id);
            Map<?, ?> body = (Map<?, ?>) PlanJson.read(result.getBody());
            assertThat(body.get("SourceID")).isEqualTo(id);
            assertThat(body.get("Body")).isEqualTo("kept");
        }
    }

    @Test
    void aStampThatIsNoIntegerIsRefusedAndDoesNotJamTheNextPlans() throws Exception {
        declareAsTheEngine(planQueue);
        declareAsTheEngine(resultsQueue);
        startAgent();
        engine = new MuranoEngine(URL, planQueue, resultsQueue);
        List<String> ids = new ArrayList<>();
        Map<String, Object> forged = plan("return 'forged'", null);
        forged.put("Stamp", 1e300);
        MuranoEngine.Outcome refused = call(ids, forged).get(60, TimeUnit.SECONDS);
        assertThat(refused.error()).as(String.valueOf(refused)).containsEntry("errorCode", 2);
        assertThat(String.valueOf(refused.error().get("message"))).contains("Stamp is not an integer");
        MuranoEngine.Outcome next = call(ids, plan("return 'next'", null)).get(60, TimeUnit.SECONDS);
        assertThat(next).as("the next plan's Stamp is newer than the last integer one run").isEqualTo(new MuranoEngine.Outcome("next", null));
    }

    @Test
    void theLogKeyMayNotBeTheResultsKey() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AmqpSettings(URL, "q", "", "r", false, null, true, null, null, null, "r"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("results' routing key");
    }

    private void startAgent() throws IOException {
        agent = new AmqpChannel(settings(logQueue), planService(), dir.resolve("state"), Clock.systemUTC(), channel -> {
            if (timeoutsToInject.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                // what waitForConfirmsOrDie does when its time is up
                channel.close(406, "TIMEOUT WAITING FOR ACK");
                timeoutsInjected.incrementAndGet();
                throw new TimeoutException("injected");
            }
            channel.waitForConfirmsOrDie(10_000);
        });
    }

    private AmqpSettings settings(String logKey) {
        return new AmqpSettings(URL, planQueue, "", resultsQueue, false, null, true, null, null, null, logKey);
    }

    private PlanService planService() throws IOException {
        Path state = dir.resolve("state");
        Files.createDirectories(state);
        PlanSetup setup = new PlanSetup(dir.resolve("root"), state, PlanService.installBootstrap(state), PlanService.findPython(), "9.9.9",
                (path, sha) -> {
                    throw new IOException("no fileserver in this test");
                }, Clock.systemUTC(), Duration.ofSeconds(60));
        return new PlanService(setup, (fun, args) -> new SaltStackExecutor.Reply("no function " + fun + " here", 254));
    }

    /** A vNext plan as the engine builds it (its own ID, a growing Stamp), with a Bash script {@code s} when given. */
    private Map<String, Object> plan(String body, String script) {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("FormatVersion", "2.1.0");
        plan.put("ID", UUID.randomUUID().toString().replace("-", ""));
        plan.put("Stamp", ++stamp);
        plan.put("Action", "Execute");
        plan.put("Body", body);
        if (script != null) {
            plan.put("Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")));
            plan.put("Files", Map.of("f", Map.of("Name", "s.sh", "BodyType", "Text", "Body", script)));
        }
        return plan;
    }

    private CompletableFuture<MuranoEngine.Outcome> call(List<String> ids, Map<String, Object> plan) throws IOException {
        ids.add((String) plan.get("ID"));
        return engine.call(plan);
    }

    private final List<Map<?, ?>> logsSeen = new ArrayList<>();

    /** The log messages on the log queue so far, checked not to carry a plan's message id. */
    private List<Map<?, ?>> logs() throws Exception {
        try (Channel c = admin.createChannel()) {
            GetResponse r;
            while ((r = c.basicGet(logQueue, true)) != null) {
                Map<?, ?> body = (Map<?, ?>) PlanJson.read(r.getBody());
                assertThat(r.getProps().getMessageId()).as("a log message has its own id").isEqualTo(body.get("ID"))
                        .isNotEqualTo(body.get("SourceID"));
                logsSeen.add(body);
            }
        }
        return logsSeen;
    }

    private boolean outboxEmpty() throws IOException {
        Path outbox = dir.resolve("state/plans/amqp/outbox");
        try (Stream<Path> files = Files.list(outbox)) {
            return files.noneMatch(p -> p.getFileName().toString().endsWith(".json"));
        }
    }

    private int consumers(String queue) throws Exception {
        try (Channel c = admin.createChannel()) {
            return c.queueDeclarePassive(queue).getConsumerCount();
        } catch (IOException gone) {
            return -1;
        }
    }

    /** As Murano's engine declares its queues: durable, mirrored, expiring after a day unused. */
    private void declareAsTheEngine(String queue) throws Exception {
        try (Channel c = admin.createChannel()) {
            c.queueDeclare(queue, true, false, false, AmqpChannel.ENGINE_QUEUE_ARGUMENTS);
        }
    }

    static boolean brokerReachable() {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(URL);
            factory.setConnectionTimeout(3000);
            factory.newConnection().close();
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}

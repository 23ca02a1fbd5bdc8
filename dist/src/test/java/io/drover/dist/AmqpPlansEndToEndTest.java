package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.drover.core.testing.ReferenceData;
import io.drover.model.plans.PlanJson;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Execution plans over the real RabbitMQ at 127.0.0.1:5672, to a {@code drover agent} process: results correlated
 * by message id, the broker stopped and started mid-run (an agent killed mid-plan: {@link AmqpPlanRestartTest}).
 * Fails, not skips, under CI when the broker is missing.
 */
class AmqpPlansEndToEndTest {
    static final String URL = "amqp://guest:guest@127.0.0.1:5672/%2f";

    @TempDir
    Path dir;
    TestServer server;
    Process agent;
    String inputQueue;
    String resultQueue;
    String logQueue;

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
        logQueue = "drover-test-logs-" + suffix;
        withChannel(c -> {
            c.queueDeclare(inputQueue, true, false, false, Map.of("x-expires", 600_000));
            c.queueDeclare(resultQueue, true, false, false, Map.of("x-expires", 600_000));
            c.queueDeclare(logQueue, true, false, false, Map.of("x-expires", 600_000));
        });
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.AUTO_ACCEPT, "*"));
        agent = startAgent();
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            AgentProcess.kill(agent);
        }
        AgentProcess.printTail(dir.resolve("agent.log"));
        if (server != null) {
            server.close();
        }
        if (inputQueue != null && brokerReachable()) {
            withChannel(c -> {
                c.queueDelete(inputQueue);
                c.queueDelete(resultQueue);
                c.queueDelete(logQueue);
            });
        }
    }

    Process startAgent() throws Exception {
        return AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent.log"), "--amqp-url", URL,
                "--amqp-queue", inputQueue, "--amqp-result-routing-key", resultQueue, "--amqp-log-routing-key", logQueue,
                "--amqp-allow-unsigned");
    }

    @Test
    void withoutAnEngineKeyPlansAreRefusedUnlessUnsignedOnesAreAllowed() throws Exception {
        AgentProcess.kill(agent);
        agent = AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent.log"), "--amqp-url", URL,
                "--amqp-queue", inputQueue, "--amqp-result-routing-key", resultQueue);
        Path marker = dir.resolve("ran.txt");
        publish("m-unsigned", plan("return s()", "echo ran >> " + marker));
        List<Message> got = receive(1);
        assertThat(got.get(0).messageId()).isEqualTo("m-unsigned");
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(got.get(0).body().get("Body"))).contains("does not run unsigned plans");
        assertThat(marker).doesNotExist();
        assertThat(Files.readString(dir.resolve("agent.log"))).contains("every plan from " + inputQueue + " is refused");
    }

    @Test
    void amqpsChecksTheBrokersCertificateAndItsName() throws Exception {
        AgentProcess.kill(agent);
        TlsProxy.certificate(dir, "localhost", "dns:localhost,ip:127.0.0.1");
        TlsProxy.certificate(dir, "elsewhere", "dns:other.example");
        Path password = dir.resolve("amqp.password");
        Files.writeString(password, "guest\n");
        try (TlsProxy good = TlsProxy.start(dir.resolve("localhost.p12"), 5672);
             TlsProxy misnamed = TlsProxy.start(dir.resolve("elsewhere.p12"), 5672)) {
            // the broker's name is not the certificate's, though the certificate is trusted: refused
            agent = AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent1.log"),
                    "--amqp-url", "amqps://guest@localhost:" + misnamed.port() + "/%2f", "--amqp-password-file", password.toString(),
                    "--amqp-cacert", dir.resolve("elsewhere.pem").toString(), "--amqp-queue", inputQueue,
                    "--amqp-result-routing-key", resultQueue, "--amqp-allow-unsigned");
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(dir.resolve("agent1.log")).contains("is not reachable"));
            withChannel(c -> assertThat(c.queueDeclarePassive(inputQueue).getConsumerCount()).as("no agent consumes").isZero());
            AgentProcess.kill(agent);
            // a certificate no configured CA vouches for: refused
            agent = AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent2.log"),
                    "--amqp-url", "amqps://guest@localhost:" + good.port() + "/%2f", "--amqp-password-file", password.toString(),
                    "--amqp-queue", inputQueue, "--amqp-result-routing-key", resultQueue, "--amqp-allow-unsigned");
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(dir.resolve("agent2.log")).contains("is not reachable"));
            withChannel(c -> assertThat(c.queueDeclarePassive(inputQueue).getConsumerCount()).as("no agent consumes").isZero());
            AgentProcess.kill(agent);
            // the right name and a trusted certificate: plans run, with the password from its file
            agent = AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent3.log"),
                    "--amqp-url", "amqps://guest@localhost:" + good.port() + "/%2f", "--amqp-password-file", password.toString(),
                    "--amqp-cacert", dir.resolve("localhost.pem").toString(), "--amqp-queue", inputQueue,
                    "--amqp-result-routing-key", resultQueue, "--amqp-allow-unsigned");
            publish("m-tls", plan("return 'over tls'", null));
            List<Message> got = receive(1);
            assertThat(got.get(0).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "over tls");
            assertThat(Files.readString(dir.resolve("agent1.log")) + Files.readString(dir.resolve("agent2.log")))
                    .as("no password in the logs").doesNotContain("guest:guest");
        }
    }

    @Test
    void plansComeInAndResultsGoBackWithTheRequestsMessageId() throws Exception {
        publish("m-ok", plan("api.logInfo('hello from the plan')\nreturn 'ok'", null));
        publish("m-fail", plan("return s()", "exit 3"));
        publish("m-v1", Files.readString(ReferenceData.dir("murano").resolve("v1-askdnsip.plan.json")));
        publish("m-bad", "{ not json");

        List<Message> got = receive(4);
        assertThat(got).extracting(Message::messageId).containsExactly("m-ok", "m-fail", "m-v1", "m-bad");
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "ok").containsEntry("SourceID", "m-ok");
        assertThat(got.get(1).body()).containsEntry("ErrorCode", 100);
        assertThat(got.get(2).body()).as("vCurrent in, vCurrent out: no pwsh here").containsEntry("IsException", true);
        assertThat(got.get(3).body()).containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(got.get(3).body().get("Body"))).contains("not JSON");
        Message log = receive(logQueue, 1).get(0);
        assertThat(log.body()).containsEntry("Action", "log").containsEntry("Body", "hello from the plan").containsEntry("SourceID", "m-ok");
        assertThat(log.messageId()).as("never the plan's: the engine would take it for the result").isNotEqualTo("m-ok")
                .isEqualTo(log.body().get("ID"));
    }

    @Test
    void oldStampsRepeatedIdsAndOversizedPlansAreNotRun() throws Exception {
        Path marker = dir.resolve("runs.txt");
        Map<String, Object> five = plan("return s()", "echo five >> " + marker);
        five.put("Stamp", 5);
        five.put("ID", "plan-five");
        publish("m-five", five);
        Map<String, Object> older = plan("return s()", "echo three >> " + marker);
        older.put("Stamp", 3);
        publish("m-three", older);
        Map<String, Object> again = plan("return s()", "echo again >> " + marker);
        again.put("ID", "plan-five");
        publish("m-again", again);
        publish("m-big", plan("return 'x'\n#" + "x".repeat(16 << 20), null));
        Map<String, Object> six = plan("return s()", "echo six >> " + marker);
        six.put("Stamp", 6);
        publish("m-six", six);

        List<Message> got = receive(4);
        assertThat(got).extracting(Message::messageId).containsExactlyInAnyOrder("m-five", "m-three", "m-big", "m-six");
        Message stale = got.stream().filter(m -> m.messageId().equals("m-three")).findFirst().orElseThrow();
        assertThat(stale.body()).as("a stale Stamp is answered, so the engine does not wait out its timeout").containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(stale.body().get("Body"))).contains("The plan's Stamp 3 is not newer");
        Message big = got.stream().filter(m -> m.messageId().equals("m-big")).findFirst().orElseThrow();
        assertThat(big.body()).containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(big.body().get("Body"))).contains("over the limit of 16777216");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> {
            withChannel(c -> assertThat(c.basicGet(resultQueue, false)).as("no answer for the repeated ID").isNull());
            return true;
        });
        assertThat(Files.readAllLines(marker)).as("Stamp 3 (older than 5) and the repeated ID plan-five are not run")
                .containsExactly("five", "six");
    }

    @Test
    void theBrokerGoingAwayMidRunLosesNothing() throws Exception {
        // The script ends only once the broker is down (a fixed sleep raced a slow stop_app in one CI run: the plan
        // finished and sent everything before the broker went away, and the outbox stayed empty).
        Path brokerDown = dir.resolve("broker-down-" + System.nanoTime());
        publish("m-1", plan("api.logInfo('started')\nout = s().stdout\napi.logInfo('finished while the broker was away')\n"
                + "return out", "while [ ! -e '" + brokerDown + "' ]; do sleep 0.1; done; echo done"));
        assertThat(receive(logQueue, 1).get(0).body()).containsEntry("Body", "started");
        rabbitmqctl("stop_app");
        Files.createFile(brokerDown);
        Path outbox = dir.resolve("host/var/lib/drover-agent/plans/amqp/outbox");
        try {
            // the plan finishes while the broker is away: its last log message and its result wait in the outbox
            await("the log and the result in the outbox").atMost(Duration.ofSeconds(30))
                    .until(() -> fileCount(outbox) >= 2);
        } finally {
            rabbitmqctl("start_app");
        }
        await().atMost(Duration.ofSeconds(60)).until(AmqpPlansEndToEndTest::brokerReachable);
        assertThat(receive(logQueue, 1).get(0).body()).as("a log message queued while the broker was away")
                .containsEntry("Action", "log").containsEntry("Body", "finished while the broker was away");
        Message result = receive(1).get(0);
        assertThat(result.messageId()).isEqualTo("m-1");
        assertThat(result.body()).containsEntry("ErrorCode", 0).containsEntry("Body", "done");
        publish("m-2", plan("return 2", null));
        assertThat(receive(1).get(0).body()).containsEntry("Body", 2);
    }

    @Test
    void withAnEngineKeyOnlySignedPlansRun() throws Exception {
        AgentProcess.kill(agent);
        java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        java.security.KeyPair engine = generator.generateKeyPair();
        Path pem = dir.resolve("engine.pem");
        Files.writeString(pem, "-----BEGIN PUBLIC KEY-----\n" + java.util.Base64.getMimeEncoder()
                .encodeToString(engine.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n");
        agent = AgentProcess.start(server, "amqp-agent", dir.resolve("host"), dir.resolve("agent.log"), "--amqp-url", URL,
                "--amqp-queue", inputQueue, "--amqp-result-routing-key", resultQueue, "--amqp-engine-key", pem.toString());
        // (with a key, unsigned plans are refused whatever --amqp-allow-unsigned would say: the two are refused together)

        Map<String, Object> stamped = plan("return 'signed'", null);
        stamped.put("ID", "signed-plan-1");
        stamped.put("Stamp", 17_000_000_000_000L); // as Murano's engine stamps every plan: int(time * 10000)
        byte[] body = PlanJson.write(stamped).getBytes(StandardCharsets.UTF_8);
        byte[] signature = signed(engine, body);
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId("m-signed")
                .headers(Map.of("signature", signature)).build(), body));
        publish("m-unsigned", plan("return 'unsigned'", null));
        byte[] tampered = PlanJson.write(plan("return 'tampered'", null)).getBytes(StandardCharsets.UTF_8);
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId("m-tampered")
                .headers(Map.of("signature", signature)).build(), tampered));
        // captured off the wire and published again under another message id (which the signature does not cover)
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId("m-replayed")
                .headers(Map.of("signature", signature)).build(), body));
        // signed, but without a Stamp: nothing would stop its replay
        byte[] unstamped = PlanJson.write(plan("return 'unstamped'", null)).getBytes(StandardCharsets.UTF_8);
        byte[] unstampedSignature = signed(engine, unstamped);
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId("m-unstamped")
                .headers(Map.of("signature", unstampedSignature)).build(), unstamped));

        List<Message> got = receive(5);
        assertThat(got.get(0).body()).containsEntry("ErrorCode", 0).containsEntry("Body", "signed");
        assertThat(got.get(1).body()).containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(got.get(1).body().get("Body"))).contains("signature does not match");
        assertThat(got.get(2).messageId()).isEqualTo("m-tampered");
        assertThat(got.get(2).body()).containsEntry("ErrorCode", 2);
        assertThat(got.get(3).messageId()).isEqualTo("m-replayed");
        assertThat(got.get(3).body()).as("the replayed plan was not run again").containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(got.get(3).body().get("Body"))).contains("not newer");
        assertThat(got.get(4).messageId()).isEqualTo("m-unstamped");
        assertThat(got.get(4).body()).containsEntry("ErrorCode", 2);
        assertThat(String.valueOf(got.get(4).body().get("Body"))).contains("must carry an integer Stamp");
    }

    byte[] signed(java.security.KeyPair engine, byte[] body) throws java.security.GeneralSecurityException {
        java.security.Signature signer = java.security.Signature.getInstance("SHA256withRSA");
        signer.initSign(engine.getPrivate());
        signer.update(inputQueue.getBytes(StandardCharsets.UTF_8));
        signer.update(body);
        return signer.sign();
    }

    /** A plan with one Bash script {@code s} running {@code script} (when given). */
    static Map<String, Object> plan(String body, String script) {
        Map<String, Object> plan = new java.util.LinkedHashMap<>();
        plan.put("FormatVersion", "2.1.0");
        plan.put("Body", body);
        if (script != null) {
            plan.put("Scripts", Map.of("s", Map.of("Type", "Bash", "EntryPoint", "f")));
            plan.put("Files", Map.of("f", Map.of("Name", "s.sh", "BodyType", "Text", "Body", script)));
        }
        return plan;
    }

    record Message(String messageId, Map<String, Object> body) {
    }

    void publish(String messageId, Object plan) throws Exception {
        byte[] body = (plan instanceof String text ? text : PlanJson.write(plan)).getBytes(StandardCharsets.UTF_8);
        withChannel(c -> c.basicPublish("", inputQueue, new AMQP.BasicProperties.Builder().messageId(messageId)
                .deliveryMode(2).build(), body));
    }

    /** The next {@code count} messages on the result queue, in order; reconnects as needed. */
    List<Message> receive(int count) {
        return receive(resultQueue, count);
    }

    /** The next {@code count} messages on a queue, in order; reconnects as needed. */
    @SuppressWarnings("unchecked")
    List<Message> receive(String queue, int count) {
        List<Message> got = new ArrayList<>();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
            try {
                withChannel(c -> {
                    GetResponse r;
                    while (got.size() < count && (r = c.basicGet(queue, true)) != null) {
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

    interface ChannelWork {
        void run(Channel channel) throws Exception;
    }

    static void withChannel(ChannelWork work) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(URL);
        factory.setConnectionTimeout(3000);
        try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
            work.run(channel);
        }
    }

    static boolean brokerReachable() {
        try {
            withChannel(c -> { });
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    static void rabbitmqctl(String command) throws Exception {
        Process p = new ProcessBuilder("rabbitmqctl", command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("rabbitmqctl " + command).isTrue();
        assertThat(p.exitValue()).as("rabbitmqctl " + command).isZero();
    }

    static long fileCount(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
        }
    }
}

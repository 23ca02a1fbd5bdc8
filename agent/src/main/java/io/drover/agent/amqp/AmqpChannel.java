package io.drover.agent.amqp;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import io.drover.agent.plans.PlanHooks;
import io.drover.agent.plans.PlanService;
import io.drover.core.plans.ExecutionResult;
import io.drover.core.plans.LogMessage;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanRestarts;
import io.drover.model.plans.PlanJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Execution plans over AMQP, as the reference agent takes them: plans are consumed from the input queue (prefetch
 * 1), stored on disk and only then acknowledged; one worker runs them in order; results go through a disk outbox to
 * the result exchange and routing key (or the plan's ReplyTo) with the request's message id, log messages (when a log
 * routing key is set) to that key with their own id, each deleted once the broker routed and confirmed it
 * ({@link ResultSender}). Results left unsent by the last run go out before any new plan runs. When the broker goes
 * away the agent reconnects with backoff; when it cancels the consumer (the queue deleted) the agent subscribes
 * again; nothing received or produced is lost meanwhile.
 */
public final class AmqpChannel implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AmqpChannel.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /** The largest plan taken: as the Drover transport's largest message. */
    static final int MAX_PLAN_BYTES = 16 << 20;
    /** The arguments Murano's engine declares an agent's queue with (murano/common/messaging/mqclient.py). */
    static final Map<String, Object> ENGINE_QUEUE_ARGUMENTS = Map.of("x-ha-policy", "all", "x-expires", 86_400_000);

    private final AmqpSettings settings;
    private final PlanService plans;
    private final PlanQueue queue;
    private final Clock clock;
    private final PublicKey engineKey;
    /** For amqps://: checks the broker's certificate against the configured or system CAs. */
    private final javax.net.ssl.SSLContext tls;
    private final Object signal = new Object();
    private volatile boolean running = true;
    private volatile Connection connection;
    private final ResultSender publisher;
    /** Set when the broker cancelled the consumer: the connect loop subscribes again. */
    private volatile boolean resubscribe;
    private final Thread connector;
    private final Thread worker;
    private final Thread sender;
    private volatile boolean startupFlushed;

    public AmqpChannel(AmqpSettings settings, PlanService plans, java.nio.file.Path stateDir, Clock clock) {
        this(settings, plans, stateDir, clock, ResultSender.WAIT_10_SECONDS);
    }

    AmqpChannel(AmqpSettings settings, PlanService plans, java.nio.file.Path stateDir, Clock clock, ResultSender.Confirms confirms) {
        this.publisher = new ResultSender(confirms, settings.logRoutingKey());
        this.settings = settings;
        this.plans = plans;
        this.queue = new PlanQueue(stateDir);
        this.clock = clock;
        this.engineKey = settings.engineKey() == null ? null : readKey(settings.engineKey());
        this.tls = settings.url().startsWith("amqps://") ? BrokerTls.context(settings.caCert()) : null;
        if (engineKey == null && settings.allowUnsigned()) {
            log.warn("execution plans: --amqp-allow-unsigned: plans are run without a signature, so whoever can publish to {}"
                    + " runs code on this host; give the engine's key with --amqp-engine-key", settings.inputQueue());
        } else if (engineKey == null) {
            log.warn("execution plans: no --amqp-engine-key: every plan from {} is refused (or allow unsigned plans with"
                    + " --amqp-allow-unsigned)", settings.inputQueue());
        }
        this.startupFlushed = queue.outgoing().isEmpty();
        this.connector = Thread.ofPlatform().name("amqp-connect").daemon().start(this::connectLoop);
        this.sender = Thread.ofPlatform().name("amqp-send").daemon().start(this::sendLoop);
        this.worker = Thread.ofPlatform().name("amqp-plans").daemon().start(this::workLoop);
    }

    public boolean connected() {
        Connection c = connection;
        return c != null && c.isOpen();
    }

    /** Connects, consumes the input queue, and on any loss connects again after a growing, jittered pause. */
    private void connectLoop() {
        long backoffMs = 500;
        while (running) {
            try {
                ConnectionFactory factory = new ConnectionFactory();
                factory.setUri(settings.url());
                if (settings.password() != null) {
                    factory.setPassword(settings.password());
                }
                if (tls != null) {
                    // setUri trusts any certificate for amqps://; check the chain and the broker's name instead
                    factory.useSslProtocol(tls);
                    factory.enableHostnameVerification();
                }
                factory.setAutomaticRecoveryEnabled(false);
                factory.setConnectionTimeout(10_000);
                factory.setRequestedHeartbeat(30);
                Connection opened = factory.newConnection("drover-agent");
                resubscribe = false;
                Channel consumer = subscribe(opened);
                connection = opened;
                backoffMs = 500;
                wake();
                while (running && opened.isOpen()) {
                    if (resubscribe) {
                        resubscribe = false;
                        consumer.abort();
                        consumer = subscribe(opened);
                    }
                    synchronized (signal) {
                        signal.wait(1000);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                log.warn("execution plans: the broker at {} is not reachable ({}); retrying in {} ms", safeUrl(), describe(e), backoffMs);
            }
            closeQuietly();
            if (!running) {
                return;
            }
            try {
                Thread.sleep(backoffMs + ThreadLocalRandom.current().nextLong(backoffMs / 2 + 1));
            } catch (InterruptedException e) {
                return;
            }
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF.toMillis());
        }
    }

    /** Consumes the input queue on a new channel; a broker's cancel (the queue deleted) makes the loop subscribe again. */
    private Channel subscribe(Connection opened) throws IOException {
        Channel consumer = declareInput(opened);
        consumer.basicQos(1);
        consumer.basicConsume(settings.inputQueue(), false, deliver(consumer), tag -> {
            log.warn("execution plans: the broker cancelled the consumer of {} (the queue was deleted or declared again);"
                    + " subscribing again", settings.inputQueue());
            resubscribe = true;
            wake();
        });
        log.info("execution plans: consuming {} on {}", settings.inputQueue(), opened.getAddress());
        return consumer;
    }

    /**
     * The input queue as it is when the engine declared it (whatever its arguments), or declared here when it does not
     * exist yet, as Murano's engine declares it (durable, {@code x-expires} one day, {@code x-ha-policy} all), so
     * that the engine's own declaration, which RabbitMQ refuses when the arguments differ, still succeeds. A passive
     * check that fails closes its channel, so the declaration takes a new one.
     */
    private Channel declareInput(Connection opened) throws IOException {
        Channel channel = opened.createChannel();
        try {
            channel.queueDeclarePassive(settings.inputQueue());
            return channel;
        } catch (IOException missing) {
            Channel declaring = opened.createChannel();
            declaring.queueDeclare(settings.inputQueue(), true, false, false, ENGINE_QUEUE_ARGUMENTS);
            return declaring;
        }
    }

    private static String describe(Exception e) {
        Throwable cause = e.getMessage() == null && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    /** A plan arrives: stored on disk first, acknowledged after; if it cannot be stored the broker keeps it. */
    private DeliverCallback deliver(Channel consumer) {
        return (tag, delivery) -> {
            AMQP.BasicProperties properties = delivery.getProperties();
            try {
                Object signature = properties.getHeaders() == null ? null : properties.getHeaders().get("signature");
                byte[] signatureBytes = switch (signature) {
                    case null -> null;
                    case byte[] bytes -> bytes;
                    case com.rabbitmq.client.LongString text -> text.getBytes();
                    default -> String.valueOf(signature).getBytes(StandardCharsets.ISO_8859_1);
                };
                if (delivery.getBody().length > MAX_PLAN_BYTES) {
                    // Answered without keeping the body: a plan this large is refused, not stored.
                    queue.send(settings.resultExchange(), settings.replyTo() && properties.getReplyTo() != null
                                    ? properties.getReplyTo() : settings.resultRoutingKey(), properties.getMessageId(),
                            error(PlanErrorCode.BAD_FORMAT, properties.getMessageId(), "The plan is " + delivery.getBody().length
                                    + " bytes, over the limit of " + MAX_PLAN_BYTES));
                } else {
                    queue.accept(properties.getMessageId(), properties.getReplyTo(), delivery.getBody(), signatureBytes);
                }
                consumer.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
                wake();
            } catch (RuntimeException e) {
                log.error("execution plans: cannot store a received plan; the broker keeps it", e);
                consumer.basicNack(delivery.getEnvelope().getDeliveryTag(), false, true);
            }
        };
    }

    /** Sends the outbox in order whenever connected; a message leaves the outbox once the broker routed and confirmed it. */
    private void sendLoop() {
        while (running) {
            try {
                Connection open = connection;
                List<PlanQueue.Outgoing> messages = queue.outgoing();
                if (open != null && open.isOpen() && !messages.isEmpty()) {
                    if (!publisher.send(open, queue, messages)) {
                        pause();
                    }
                    continue;
                }
                if (messages.isEmpty() && !startupFlushed) {
                    startupFlushed = true;
                    wake();
                }
                synchronized (signal) {
                    signal.wait(500);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                log.warn("execution plans: sending results failed ({}); they stay queued", e.getMessage());
                pause();
            }
        }
    }

    /** Runs stored plans one at a time, oldest first, once the results of the last run are sent. */
    private void workLoop() {
        while (running) {
            try {
                Optional<PlanQueue.Entry> next = startupFlushed ? queue.next() : Optional.empty();
                if (next.isEmpty()) {
                    synchronized (signal) {
                        signal.wait(500);
                    }
                    continue;
                }
                process(next.get());
                wake();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("execution plans: the plan queue failed", e);
                pause();
            }
        }
    }

    private void process(PlanQueue.Entry entry) {
        String messageId = entry.messageId();
        if (engineKey == null && !settings.allowUnsigned()) {
            finish(entry, messageId, error(PlanErrorCode.BAD_FORMAT, messageId, "The agent has no engine key to check the plan's"
                    + " signature and does not run unsigned plans (--amqp-engine-key, or --amqp-allow-unsigned); it was not run"));
            return;
        }
        if (engineKey != null && !verified(entry)) {
            finish(entry, messageId, error(PlanErrorCode.BAD_FORMAT, messageId, "The plan's signature does not match the engine key; it was not run"));
            return;
        }
        Map<?, ?> document = peek(entry.data());
        if (entry.running()) {
            // Cut short by a stop: restarted from the start within the plan's limits, else answered.
            switch (entry.restarts().atStart()) {
                case PlanRestarts.Decision.Answer answer -> {
                    finish(entry, messageId, error(answer.error(), sourceId(document, messageId)));
                    return;
                }
                case PlanRestarts.Decision.Restart restart -> {
                    queue.markRestarts(entry, restart.next());
                    log.info("execution plans: plan {} was cut short by {}; running it again from the start",
                            sourceId(document, messageId), restart.afterReboot() ? "a reboot it waited for" : "a stop of the agent");
                }
            }
        } else {
            if (engineKey != null && !(document != null && document.get("Stamp") instanceof Number stamp
                    && (stamp instanceof Integer || stamp instanceof Long))) {
                // The signature covers the queue and the body only, not the message id: a signed plan without a Stamp
                // (Murano's engine stamps every plan it sends) could be published again under a new id and run again.
                finish(entry, messageId, error(PlanErrorCode.BAD_FORMAT, sourceId(document, messageId), "A signed plan must "
                        + "carry an integer Stamp (Murano's engine adds one): without it the plan could be sent again and run "
                        + "again; it was not run"));
                return;
            }
            // Marked first: a plan cut short by a crash is restarted at the next start, never dropped as a duplicate.
            queue.markRunning(entry);
            // Only an integer Stamp is recorded: 1e300 read as Long.MAX_VALUE would make every later plan stale. The
            // validator answers any other Stamp.
            if (document != null && document.get("Stamp") instanceof Number stamp && (stamp instanceof Integer || stamp instanceof Long)
                    && !queue.newStamp(stamp.longValue())) {
                // Answered, not dropped: the engine would otherwise wait out its timeout.
                log.info("execution plans: refusing plan {}: its Stamp {} is not newer than the last one run", sourceId(document, messageId), stamp);
                finish(entry, messageId, error(PlanErrorCode.BAD_FORMAT, sourceId(document, messageId), "The plan's Stamp " + stamp
                        + " is not newer than the Stamp of a plan this agent ran before (" + queue.lastStamp() + "): an old or"
                        + " repeated plan; it was not run"));
                return;
            }
            String id = sourceId(document, messageId);
            if (id != null && !queue.firstTime(id)) {
                log.info("execution plans: dropping plan {}: a plan with this ID ran before", id);
                queue.drop(entry);
                return;
            }
        }
        PlanService.Answer answer = plans.execute(entry.data(), messageId, new PlanHooks() {
            @Override
            public void log(LogMessage message) {
                // Never to the results' key, and with the log message's own id: Murano's engine completes a plan with
                // the first message there whose SourceID (or, without one, message id) is the plan's.
                String key = settings.logRoutingKey();
                if (key == null || key.equals(routingKey(entry))) {
                    return;
                }
                queue.send(settings.resultExchange(), key, message.id(), message.toWire());
                wake();
            }

            @Override
            public void restartable(int maxReboots) {
                queue.markRestarts(entry, entry.restarts().waiting(maxReboots));
            }

            @Override
            public void rebootWaitOver() {
                queue.markRestarts(entry, entry.restarts().running());
            }
        });
        finish(entry, messageId == null ? answer.sourceId() : messageId, answer.document());
        if (answer.reboot()) {
            reboot(answer.sourceId());
        }
    }

    private void finish(PlanQueue.Entry entry, String messageId, Map<String, Object> result) {
        queue.finish(entry, settings.resultExchange(), routingKey(entry), messageId, result);
        wake();
    }

    private String routingKey(PlanQueue.Entry entry) {
        return settings.replyTo() && entry.replyTo() != null && !entry.replyTo().isBlank() ? entry.replyTo() : settings.resultRoutingKey();
    }

    private Map<String, Object> error(int code, String sourceId, String message) {
        return error(new PlanException(code, message), sourceId);
    }

    private Map<String, Object> error(PlanException error, String sourceId) {
        return ExecutionResult.failure(newId(), sourceId, error, clock.instant()).toWire();
    }

    private boolean verified(PlanQueue.Entry entry) {
        if (entry.signature() == null) {
            return false;
        }
        try {
            Signature verifier = Signature.getInstance("SHA256withRSA");
            verifier.initVerify(engineKey);
            verifier.update(settings.inputQueue().getBytes(StandardCharsets.UTF_8));
            verifier.update(entry.data());
            return verifier.verify(entry.signature());
        } catch (java.security.GeneralSecurityException e) {
            return false;
        }
    }

    private void reboot(String planId) {
        if (settings.rebootCommand().isEmpty()) {
            log.warn("execution plans: plan {} asked for a reboot; no reboot command is configured (--amqp-reboot-command)", planId);
            return;
        }
        try {
            log.warn("execution plans: plan {} asked for a reboot: running {}", planId, settings.rebootCommand());
            new ProcessBuilder(settings.rebootCommand()).inheritIO().start().waitFor(60, TimeUnit.SECONDS);
        } catch (IOException e) {
            log.error("execution plans: the reboot command failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Map<?, ?> peek(byte[] data) {
        try {
            return PlanJson.read(data) instanceof Map<?, ?> map ? map : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String sourceId(Map<?, ?> document, String messageId) {
        return document != null && document.get("ID") instanceof String id && document.get("FormatVersion") != null ? id : messageId;
    }

    private static String newId() {
        return java.util.UUID.randomUUID().toString().replace("-", "");
    }

    private static PublicKey readKey(java.nio.file.Path file) {
        try {
            String pem = Files.readString(file).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(pem)));
        } catch (IOException | java.security.GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("the engine key " + file + " is not an RSA public key in PEM form: " + e.getMessage(), e);
        }
    }

    private String safeUrl() {
        return settings.url().replaceAll("//[^@/]*@", "//");
    }

    private void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    private void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeQuietly() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.abort(2000);
            } catch (RuntimeException e) {
                // gone already
            }
        }
    }

    @Override
    public void close() {
        running = false;
        wake();
        closeQuietly();
        connector.interrupt();
        sender.interrupt();
        worker.interrupt();
    }
}

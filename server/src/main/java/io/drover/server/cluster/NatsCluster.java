package io.drover.server.cluster;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.drover.core.cluster.ClusterSeal;
import io.drover.model.Json;
import io.drover.model.events.Event;
import io.drover.server.events.EventBus;
import io.drover.transport.envelope.JobPublisher;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.logging.RateLimitedLog;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers of a cluster talking over NATS: a job one server publishes goes to the agents connected to every
 * server ({@value #PUBLISH}), and the events one server stores reach every server's listeners and streams
 * ({@value #EVENTS}), in the batches they were stored in. Job returns travel apart ({@value #RETURNS}), compactly, and
 * only to the servers that want them (a job waited on there, a stream of returns): every return of a large fleet
 * decoded by every server would cost more than storing it. State is in the shared PostgreSQL database; these
 * messages only carry what is already stored.
 *
 * <p>Every message is sealed ({@link ClusterSeal}) under a key derived from the cluster's secret key, which only the
 * servers hold: one that is not sealed by a server of this cluster, is too old or too new, or was seen before, is
 * dropped and counted by reason ({@link #refused}), whatever NATS let through.
 */
public final class NatsCluster implements AutoCloseable {
    static final String PUBLISH = "drover.publish";
    static final String EVENTS = "drover.events";
    static final String RETURNS = "drover.returns";
    /** How far a message's time may be from this server's clock, either way. */
    static final Duration WINDOW = Duration.ofSeconds(60);
    /** The label of the key that seals cluster messages, derived from the cluster's secret key. */
    public static final String KEY_LABEL = "drover cluster messages v1";
    private static final Logger log = LoggerFactory.getLogger(NatsCluster.class);
    private static final RateLimitedLog peers = new RateLimitedLog(log);

    /** A job load for the given minions (null: every subscriber). */
    record JobPublish(PublishLoad load, List<String> minions) {
        /** As it travels: the load in Salt's spelling ({@link PublishLoad#toWire}). */
        record Wire(Map<?, ?> load, List<String> minions) {
        }

        Object toWire() {
            return new Wire(load.toWire(), minions);
        }

        /** A peer's publish, every field checked; a load that is not one is refused whole. */
        static JobPublish read(byte[] payload) throws IOException {
            Wire wire = Json.json().readValue(payload, Wire.class);
            if (wire.minions() != null && wire.minions().stream().anyMatch(java.util.Objects::isNull)) {
                throw new IllegalArgumentException("a publish to a null minion");
            }
            return new JobPublish(PublishLoad.fromWire(wire.load()), wire.minions() == null ? null : List.copyOf(wire.minions()));
        }
    }

    /** Events a server stored, in id order. */
    record StoredEvents(List<Event> events) {
    }

    /** Job returns a server stored together at {@code time}. */
    record StoredReturns(OffsetDateTime time, List<StoredReturn> returns) {
    }

    /** One return event ({@code salt/job/<jid>/ret/<minion>}), as an array: a return is small and there are many. */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"id", "jid", "minion", "fun", "retcode", "success", "ret"})
    record StoredReturn(long id, String jid, String minion, Object fun, int retcode, boolean success, Object ret) {
        /** The return an event holds, or null when it is not a stored job return (any other event, or an agent's own with such a tag). */
        static StoredReturn of(Event event) {
            Map<String, Object> data = event.data();
            if (data.size() == 6 && data.get("jid") instanceof String jid && data.get("id") instanceof String minion
                    && data.get("retcode") instanceof Integer retcode && data.get("success") instanceof Boolean success
                    && data.containsKey("fun") && data.containsKey("return")
                    && event.tag().equals("salt/job/" + jid + "/ret/" + minion)) {
                return new StoredReturn(event.id(), jid, minion, data.get("fun"), retcode, success, data.get("return"));
            }
            return null;
        }

        Event event(OffsetDateTime time) {
            if (jid == null || minion == null) {
                throw new IllegalArgumentException("a return without its job id or minion id");
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("jid", jid);
            data.put("id", minion);
            data.put("fun", fun);
            data.put("return", ret);
            data.put("retcode", retcode);
            data.put("success", success);
            return new Event(id, "salt/job/" + jid + "/ret/" + minion, time, data);
        }
    }

    private final Connection nats;
    private final Dispatcher dispatcher;
    private final ClusterSeal seal;
    private final NatsCredentials credentials;
    private final Map<ClusterSeal.Refusal, LongAdder> refused = new EnumMap<>(ClusterSeal.Refusal.class);
    private final JobPublisher localPublish;
    private final EventBus bus;
    private volatile boolean receivingReturns;

    private NatsCluster(Connection nats, NatsCredentials credentials, byte[] key, Clock clock,
                        JobPublisher localPublish, EventBus bus) {
        this.nats = nats;
        this.credentials = credentials;
        this.seal = new ClusterSeal(key, UUID.randomUUID(), clock, WINDOW, (int) Math.min(Integer.MAX_VALUE, nats.getMaxPayload()));
        for (ClusterSeal.Refusal reason : ClusterSeal.Refusal.values()) {
            refused.put(reason, new LongAdder());
        }
        this.localPublish = localPublish;
        this.bus = bus;
        this.dispatcher = nats.createDispatcher(this::receive);
        dispatcher.subscribe(PUBLISH);
        dispatcher.subscribe(EVENTS);
        bus.forwardTo(this::forward);
        bus.onPeerReturnInterest(this::wantReturns);
    }

    /**
     * Joins the cluster at {@code url} (several separated by commas) with the given credentials; messages are sealed
     * and opened under {@code key} (32 bytes the cluster's servers share); peers' jobs go to {@code localPublish}
     * (this server's agents), peers' events to {@code bus}. Fails when no NATS server answers within 5 s, or refuses
     * the credentials.
     */
    public static NatsCluster join(String url, NatsCredentials credentials, byte[] key, Clock clock,
                                   JobPublisher localPublish, EventBus bus) {
        java.util.concurrent.atomic.AtomicReference<String> problem = new java.util.concurrent.atomic.AtomicReference<>();
        Options options = NatsOptions.of(url, credentials).connectionName("drover-server")
                .connectionTimeout(Duration.ofSeconds(5)).maxReconnects(-1).reconnectWait(Duration.ofSeconds(1))
                .noEcho()
                .connectionListener((connection, type) -> log.info("cluster: NATS {}", type.toString().toLowerCase()))
                .errorListener(new io.nats.client.ErrorListener() {
                    @Override
                    public void errorOccurred(Connection connection, String error) {
                        problem.set(RateLimitedLog.shown(error, 200));
                        peers.warn("nats-error", "cluster: NATS says: {}", problem.get());
                    }

                    @Override
                    public void exceptionOccurred(Connection connection, Exception exception) {
                        // the client's messages may name the URL with its password
                        Throwable cause = exception.getCause() == null ? exception : exception.getCause();
                        problem.set(RateLimitedLog.shown(withoutSecrets(cause.toString()), 300));
                        peers.warn("nats-exception", "cluster: NATS connection: {}", problem.get());
                    }
                })
                .build();
        try {
            Connection connection = Nats.connect(options);
            NatsCluster cluster = new NatsCluster(connection, credentials, key, clock, localPublish, bus);
            // joined means NATS has the subscriptions: a peer's job or event sent after join returns reaches this server
            boolean joined = false;
            try {
                connection.flush(Duration.ofSeconds(5));
                joined = true;
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("the cluster's NATS at " + withoutSecrets(url)
                        + " did not confirm this server's subscriptions within 5 s");
            } finally {
                if (!joined) {
                    cluster.close(); // whatever ended the wait (a timeout, an interrupt, a closed connection)
                }
            }
            return cluster;
        } catch (IOException e) {
            // not chained: the client's own message and trace name the URL with its password
            throw new IllegalStateException(withoutSecrets("cannot reach the cluster's NATS at " + url + ": " + e.getMessage())
                    + (problem.get() == null ? "" : " (last: " + problem.get() + ")"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the cluster at " + withoutSecrets(url), e);
        }
    }

    /** The URL as it may be shown: a user and password in it ({@code nats://user:secret@host}) left out. */
    public static String withoutSecrets(String url) {
        return url.replaceAll("//[^@/,\\s\\]]*@", "//…@");
    }

    /** Sends a job this server published to the other servers, for their agents. */
    public void publish(PublishLoad load, Collection<String> minions) {
        sendSplit(PUBLISH, List.of(new JobPublish(load, minions == null ? null : List.copyOf(minions))), p -> p.getFirst().toWire());
    }

    /**
     * Subscribes to the peers' returns while this server wants them, and waits (a round trip, at most 2 s) until NATS
     * has the subscription, so that a return stored by a peer after this call reaches this server.
     */
    private synchronized void wantReturns(boolean wanted) {
        if (wanted && !receivingReturns) {
            dispatcher.subscribe(RETURNS);
            try {
                nats.flush(Duration.ofSeconds(2));
            } catch (java.util.concurrent.TimeoutException | IllegalStateException e) {
                log.warn("cluster: NATS did not confirm the subscription to {} within 2 s: {}", RETURNS, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (!wanted && receivingReturns) {
            dispatcher.unsubscribe(RETURNS);
        }
        receivingReturns = wanted;
    }

    /** Whether this server now receives the returns its peers store. */
    public boolean receivesReturns() {
        return receivingReturns;
    }

    private void forward(List<Event> events) {
        List<Event> others = new ArrayList<>();
        List<StoredReturn> stored = new ArrayList<>();
        for (Event event : events) {
            StoredReturn ret = StoredReturn.of(event);
            if (ret == null) {
                others.add(event);
            } else {
                stored.add(ret);
            }
        }
        if (!stored.isEmpty()) {
            OffsetDateTime time = events.getFirst().time();
            sendSplit(RETURNS, stored, part -> new StoredReturns(time, part));
        }
        if (!others.isEmpty()) {
            sendSplit(EVENTS, others, StoredEvents::new);
        }
    }

    /** Sends items as one message, or in halves until each part fits NATS's payload limit (one item over it is dropped). */
    private <T> void sendSplit(String subject, List<T> items, java.util.function.Function<List<T>, Object> message) {
        byte[] bytes = encode(subject, message.apply(items));
        if (bytes == null) {
            return;
        }
        if (bytes.length + ClusterSeal.HEADER <= nats.getMaxPayload()) {
            nats.publish(subject, seal.seal(subject, bytes));
        } else if (items.size() > 1) {
            sendSplit(subject, items.subList(0, items.size() / 2), message);
            sendSplit(subject, items.subList(items.size() / 2, items.size()), message);
        } else {
            log.error("cluster: a {} message of {} bytes is over NATS's limit of {} bytes; the other servers miss it",
                    subject, bytes.length, nats.getMaxPayload());
        }
    }

    private static byte[] encode(String subject, Object message) {
        try {
            return Json.json().writeValueAsBytes(message);
        } catch (IOException e) {
            log.error("cluster: cannot encode a message for {}", subject, e);
            return null;
        }
    }

    /**
     * A peer's message: opened (one that is not sealed by a server of this cluster, lately and once, is dropped,
     * counted and logged at most once every ten seconds per reason), then read; anything malformed is logged and
     * dropped, the dispatcher keeps going.
     */
    private void receive(Message message) {
        byte[] payload;
        try {
            payload = seal.open(message.getSubject(), message.getData()).payload();
        } catch (ClusterSeal.Refused e) {
            refused.get(e.reason()).increment();
            peers.warn("refused-" + e.reason(), "cluster: dropped a message of {} bytes on {}: {}", message.getData().length,
                    RateLimitedLog.shown(message.getSubject(), 40), e.getMessage());
            return;
        }
        try {
            if (PUBLISH.equals(message.getSubject())) {
                JobPublish publish = JobPublish.read(payload);
                localPublish.publish(publish.load(), publish.minions());
            } else if (EVENTS.equals(message.getSubject())) {
                StoredEvents stored = Json.json().readValue(payload, StoredEvents.class);
                if (stored.events() != null) {
                    for (Event event : stored.events()) {
                        if (event != null && event.tag() != null && event.data() != null) {
                            bus.publishFromPeer(event);
                        }
                    }
                }
            } else if (RETURNS.equals(message.getSubject())) {
                StoredReturns stored = Json.json().readValue(payload, StoredReturns.class);
                if (stored.time() == null || stored.returns() == null) {
                    throw new IllegalArgumentException("returns without their time or list");
                }
                if (receivesReturns()) {
                    // all of a message is checked before any of it is delivered: a malformed one is dropped whole
                    List<Event> events = new ArrayList<>(stored.returns().size());
                    for (StoredReturn ret : stored.returns()) {
                        events.add(ret.event(stored.time()));
                    }
                    events.forEach(bus::publishFromPeer);
                }
            }
        } catch (IOException | RuntimeException e) {
            String why = e.toString();
            // the reason may quote the peer's bytes: a log line stays short whatever a peer sends
            log.warn("cluster: dropped a malformed message of {} bytes on {}: {}", message.getData().length,
                    message.getSubject(), why.length() > 300 ? why.substring(0, 300) + "…" : why);
        }
    }

    /** Messages dropped because they were not sealed by a server of this cluster, lately and once, by reason. */
    public long refused(ClusterSeal.Refusal reason) {
        return refused.get(reason).sum();
    }

    /** The credentials this server gave NATS. */
    public NatsCredentials credentials() {
        return credentials;
    }

    public boolean connected() {
        return nats.getStatus() == Connection.Status.CONNECTED;
    }

    @Override
    public void close() {
        try {
            nats.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

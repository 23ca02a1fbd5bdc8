package io.drover.server.cluster;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.Json;
import io.drover.model.events.Event;
import io.drover.server.events.EventBus;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers of a cluster talking over NATS: a job one server publishes goes to the agents connected to every
 * server ({@value #PUBLISH}), and the events one server stores reach every server's listeners and streams
 * ({@value #EVENTS}), in the batches they were stored in. Job returns travel apart ({@value #RETURNS}), compactly, and
 * only to the servers that want them (a job waited on there, a stream of returns): every return of a large fleet
 * decoded by every server would cost more than storing it. State is in the shared PostgreSQL database; these
 * messages only carry what is already stored. Each server drops its own messages.
 */
public final class NatsCluster implements AutoCloseable {
    static final String PUBLISH = "drover.publish";
    static final String EVENTS = "drover.events";
    static final String RETURNS = "drover.returns";
    private static final Logger log = LoggerFactory.getLogger(NatsCluster.class);

    /** A job load for the given minions (null: every subscriber), from server {@code origin}. */
    record JobPublish(String origin, Map<String, Object> load, List<String> minions) {
    }

    /** Events server {@code origin} stored, in id order. */
    record StoredEvents(String origin, List<Event> events) {
    }

    /** Job returns server {@code origin} stored together at {@code time}. */
    record StoredReturns(String origin, OffsetDateTime time, List<StoredReturn> returns) {
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
    private final String origin = UUID.randomUUID().toString();
    private final BiConsumer<Map<String, Object>, Collection<String>> localPublish;
    private final EventBus bus;
    private volatile boolean receivingReturns;

    private NatsCluster(Connection nats, BiConsumer<Map<String, Object>, Collection<String>> localPublish, EventBus bus) {
        this.nats = nats;
        this.localPublish = localPublish;
        this.bus = bus;
        this.dispatcher = nats.createDispatcher(this::receive);
        dispatcher.subscribe(PUBLISH);
        dispatcher.subscribe(EVENTS);
        bus.forwardTo(this::forward);
        bus.onPeerReturnInterest(this::wantReturns);
    }

    /**
     * Joins the cluster at {@code url} (several separated by commas); peers' jobs go to {@code localPublish} (this
     * server's agents), peers' events to {@code bus}. Fails when no NATS server answers within 5 s.
     */
    public static NatsCluster join(String url, BiConsumer<Map<String, Object>, Collection<String>> localPublish, EventBus bus) {
        Options options = Options.builder().servers(url.split(",")).connectionName("drover-server")
                .connectionTimeout(Duration.ofSeconds(5)).maxReconnects(-1).reconnectWait(Duration.ofSeconds(1))
                .connectionListener((connection, type) -> log.info("cluster: NATS {}", type.toString().toLowerCase()))
                .build();
        try {
            return new NatsCluster(Nats.connect(options), localPublish, bus);
        } catch (IOException e) {
            // not chained: the client's own message and trace name the URL with its password
            throw new IllegalStateException(withoutSecrets("cannot reach the cluster's NATS at " + url + ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the cluster at " + withoutSecrets(url), e);
        }
    }

    /** The URL as it may be shown: a user and password in it ({@code nats://user:secret@host}) left out. */
    static String withoutSecrets(String url) {
        return url.replaceAll("//[^@/,\\s\\]]*@", "//…@");
    }

    /** Sends a job this server published to the other servers, for their agents. */
    public void publish(Map<String, Object> load, Collection<String> minions) {
        sendSplit(PUBLISH, List.of(new JobPublish(origin, load, minions == null ? null : List.copyOf(minions))), List::getFirst);
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
            sendSplit(RETURNS, stored, part -> new StoredReturns(origin, time, part));
        }
        if (!others.isEmpty()) {
            sendSplit(EVENTS, others, part -> new StoredEvents(origin, part));
        }
    }

    /** Sends items as one message, or in halves until each part fits NATS's payload limit (one item over it is dropped). */
    private <T> void sendSplit(String subject, List<T> items, java.util.function.Function<List<T>, Object> message) {
        byte[] bytes = encode(subject, message.apply(items));
        if (bytes == null) {
            return;
        }
        if (bytes.length <= nats.getMaxPayload()) {
            nats.publish(subject, bytes);
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

    /** A peer's message; anything malformed is logged and dropped, the dispatcher keeps going. */
    private void receive(Message message) {
        try {
            if (PUBLISH.equals(message.getSubject())) {
                JobPublish publish = Json.json().readValue(message.getData(), new TypeReference<>() { });
                if (!origin.equals(publish.origin()) && publish.load() != null) {
                    localPublish.accept(publish.load(), publish.minions());
                }
            } else if (EVENTS.equals(message.getSubject())) {
                StoredEvents stored = Json.json().readValue(message.getData(), StoredEvents.class);
                if (!origin.equals(stored.origin()) && stored.events() != null) {
                    for (Event event : stored.events()) {
                        if (event != null && event.tag() != null && event.data() != null) {
                            bus.publishFromPeer(event);
                        }
                    }
                }
            } else if (RETURNS.equals(message.getSubject())) {
                StoredReturns stored = Json.json().readValue(message.getData(), StoredReturns.class);
                if (stored.time() == null || stored.returns() == null) {
                    throw new IllegalArgumentException("returns without their time or list");
                }
                if (!origin.equals(stored.origin()) && receivesReturns()) {
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

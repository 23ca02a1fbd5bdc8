package io.drover.server.cluster;

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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers of a cluster talking over NATS: a job one server publishes goes to the agents connected to every
 * server ({@value #PUBLISH}), and the events one server stores reach every server's listeners and streams
 * ({@value #EVENTS}), returns included, so a caller waiting on any server sees every return. State is in the shared
 * PostgreSQL database; these messages only carry what is already stored. Each server drops its own messages.
 */
public final class NatsCluster implements AutoCloseable {
    static final String PUBLISH = "drover.publish";
    static final String EVENTS = "drover.events";
    private static final Logger log = LoggerFactory.getLogger(NatsCluster.class);

    /** A job load for the given minions (null: every subscriber), from server {@code origin}. */
    record JobPublish(String origin, Map<String, Object> load, List<String> minions) {
    }

    /** An event server {@code origin} stored. */
    record StoredEvent(String origin, Event event) {
    }

    private final Connection nats;
    private final Dispatcher dispatcher;
    private final String origin = UUID.randomUUID().toString();
    private final BiConsumer<Map<String, Object>, Collection<String>> localPublish;
    private final EventBus bus;

    private NatsCluster(Connection nats, BiConsumer<Map<String, Object>, Collection<String>> localPublish, EventBus bus) {
        this.nats = nats;
        this.localPublish = localPublish;
        this.bus = bus;
        this.dispatcher = nats.createDispatcher(this::receive);
        dispatcher.subscribe(PUBLISH);
        dispatcher.subscribe(EVENTS);
        bus.forwardTo(this::forward);
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
            throw new IllegalStateException("cannot reach the cluster's NATS at " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while joining the cluster at " + url, e);
        }
    }

    /** Sends a job this server published to the other servers, for their agents. */
    public void publish(Map<String, Object> load, Collection<String> minions) {
        send(PUBLISH, new JobPublish(origin, load, minions == null ? null : List.copyOf(minions)));
    }

    private void forward(Event event) {
        send(EVENTS, new StoredEvent(origin, event));
    }

    private void send(String subject, Object message) {
        byte[] bytes;
        try {
            bytes = Json.json().writeValueAsBytes(message);
        } catch (IOException e) {
            log.error("cluster: cannot encode a message for {}", subject, e);
            return;
        }
        if (bytes.length > nats.getMaxPayload()) {
            log.error("cluster: a {} message of {} bytes is over NATS's limit of {} bytes; the other servers miss it",
                    subject, bytes.length, nats.getMaxPayload());
            return;
        }
        nats.publish(subject, bytes);
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
                StoredEvent stored = Json.json().readValue(message.getData(), StoredEvent.class);
                if (!origin.equals(stored.origin()) && stored.event() != null) {
                    bus.publishFromPeer(stored.event());
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

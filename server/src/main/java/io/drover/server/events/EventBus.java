package io.drover.server.events;

import io.drover.model.events.Event;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** In-process publish/subscribe of committed events. Listeners must be quick: they run on the publisher's thread. */
public final class EventBus {
    private static final Logger log = LoggerFactory.getLogger(EventBus.class);
    private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<Event>> forwarders = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Listener> peerListeners = new CopyOnWriteArrayList<>();

    public AutoCloseable subscribe(Predicate<Event> filter, Consumer<Event> consumer) {
        Listener listener = new Listener(filter, consumer);
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Events stored by this server: to its listeners, then to the forwarders (the other servers of a cluster). */
    public void publish(Event event) {
        deliver(event);
        for (Consumer<Event> forwarder : forwarders) {
            try {
                forwarder.accept(event);
            } catch (RuntimeException e) {
                log.warn("forwarding event {} #{} failed", event.tag(), event.id(), e);
            }
        }
    }

    /** Events another server of the cluster stored: to this server's listeners, then to its peer listeners. */
    public void publishFromPeer(Event event) {
        deliver(event);
        for (Listener listener : peerListeners) {
            try {
                if (listener.filter.test(event)) {
                    listener.consumer.accept(event);
                }
            } catch (RuntimeException e) {
                log.warn("peer event listener failed on {} #{}", event.tag(), event.id(), e);
            }
        }
    }

    /** Listens to the events other servers of the cluster stored (not to this server's own). */
    public void subscribeToPeers(Predicate<Event> filter, Consumer<Event> consumer) {
        peerListeners.add(new Listener(filter, consumer));
    }

    /** Adds a forwarder: it gets every event this server publishes, none that came from a peer. */
    public void forwardTo(Consumer<Event> forwarder) {
        forwarders.add(forwarder);
    }

    private void deliver(Event event) {
        for (Listener listener : listeners) {
            try {
                if (listener.filter.test(event)) {
                    listener.consumer.accept(event);
                }
            } catch (RuntimeException e) {
                log.warn("event listener failed on {} #{}", event.tag(), event.id(), e);
            }
        }
    }

    private record Listener(Predicate<Event> filter, Consumer<Event> consumer) {
    }
}

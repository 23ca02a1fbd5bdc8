package io.drover.server.events;

import io.drover.model.events.Event;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** In-process publish/subscribe of committed events. Listeners must be quick: they run on the publisher's thread. */
public final class EventBus {
    private static final Logger log = LoggerFactory.getLogger(EventBus.class);
    private final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Consumer<List<Event>>> forwarders = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<Listener> peerListeners = new CopyOnWriteArrayList<>();

    public AutoCloseable subscribe(Predicate<Event> filter, Consumer<Event> consumer) {
        Listener listener = new Listener(filter, consumer);
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** An event stored by this server: to its listeners, then to the forwarders (the other servers of a cluster). */
    public void publish(Event event) {
        publishAll(List.of(event));
    }

    /**
     * Events stored by this server, in id order: each to its listeners, then all of them at once to the forwarders
     * (the other servers of a cluster), so that a thousand returns stored together cross the cluster together.
     */
    public void publishAll(List<Event> events) {
        for (Event event : events) {
            deliver(event);
        }
        for (Consumer<List<Event>> forwarder : forwarders) {
            try {
                forwarder.accept(events);
            } catch (RuntimeException e) {
                log.warn("forwarding {} event(s) from #{} failed", events.size(), events.getFirst().id(), e);
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

    /** Adds a forwarder: it gets every event this server publishes, in batches, none that came from a peer. */
    public void forwardTo(Consumer<List<Event>> forwarder) {
        forwarders.add(forwarder);
    }

    private final Object interestLock = new Object();
    private int peerReturnInterest;
    private Consumer<Boolean> peerReturnListener = wanted -> { };

    /**
     * Declares that this server wants the job returns other servers of the cluster store (it waits on a job, or
     * streams return events), until the handle is closed. Peers' returns reach a server only while it wants them:
     * the servers that merely serve agents do not decode every return of the fleet.
     */
    public AutoCloseable wantPeerReturns() {
        synchronized (interestLock) {
            if (peerReturnInterest++ == 0) {
                peerReturnListener.accept(true);
            }
        }
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                synchronized (interestLock) {
                    if (--peerReturnInterest == 0) {
                        peerReturnListener.accept(false);
                    }
                }
            }
        };
    }

    /** Told (now, and on every change) whether anything here wants the returns other servers store. */
    public void onPeerReturnInterest(Consumer<Boolean> listener) {
        synchronized (interestLock) {
            peerReturnListener = listener;
            listener.accept(peerReturnInterest > 0);
        }
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

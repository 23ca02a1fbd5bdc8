package io.drover.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events the agent must not lose while its master is away (an execution plan's log messages): sent at once when the
 * channel is up, otherwise kept in order in memory and sent when it is back ({@link #flush}). At most
 * {@code capacity} are kept; past that the oldest are dropped, with a count in the log. A stop of the agent loses
 * what was kept (the plan's result itself is journalled on disk).
 */
final class EventOutbox {
    private static final Logger log = LoggerFactory.getLogger(EventOutbox.class);

    record Pending(String tag, Map<String, Object> data) {
    }

    private final BiPredicate<String, Map<String, Object>> sender;
    private final int capacity;
    private final Deque<Pending> pending = new ArrayDeque<>();
    private long dropped;

    /** {@code sender} sends one event and says whether the master acknowledged it. */
    EventOutbox(BiPredicate<String, Map<String, Object>> sender, int capacity) {
        this.sender = sender;
        this.capacity = capacity;
    }

    /** Sends the event after those kept before it; keeps it when it cannot be sent now. */
    synchronized void send(String tag, Map<String, Object> data) {
        if (pending.size() == capacity) {
            pending.removeFirst();
            if (dropped++ % 1000 == 0) {
                log.warn("the master has been away long: {} queued event(s) dropped so far (the oldest first)", dropped);
            }
        }
        pending.addLast(new Pending(tag, data));
        flush();
    }

    /** Sends what is kept, in order, until one is not acknowledged; returns how many are still kept. */
    synchronized int flush() {
        while (!pending.isEmpty()) {
            Pending next = pending.peekFirst();
            if (!sender.test(next.tag(), next.data())) {
                break;
            }
            pending.removeFirst();
        }
        return pending.size();
    }

    synchronized int size() {
        return pending.size();
    }
}

package io.drover.transport.master;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Job publishes waiting for the master's publisher thread, in the order they were made. Whoever starts jobs holds
 * it from the start, before the master is bound; a full queue drops the publish and counts it.
 */
public final class PublishQueue implements io.drover.transport.envelope.JobPublisher {
    private static final Logger log = LoggerFactory.getLogger(PublishQueue.class);
    static final int MAX_QUEUED = 100_000;

    /** A load for the given minions' topics, or for every subscriber when {@code minions} is null. */
    record Publish(Map<String, Object> load, Collection<String> minions) {
    }

    private final BlockingQueue<Publish> queue = new LinkedBlockingQueue<>(MAX_QUEUED);
    private final AtomicLong dropped = new AtomicLong();

    /**
     * Queues a job load for the given minions, or for every subscriber when {@code minions} is null; the publisher
     * thread adds the increasing {@code serial}.
     */
    @Override
    public void publish(io.drover.transport.envelope.PublishLoad load, Collection<String> minions) {
        publish(load.toWire(), minions);
    }

    /** As {@link #publish(io.drover.transport.envelope.PublishLoad, Collection)} with a load as it goes on the wire. */
    void publish(Map<String, Object> load, Collection<String> minions) {
        if (!queue.offer(new Publish(load, minions == null ? null : List.copyOf(minions)))) {
            dropped.incrementAndGet();
            log.warn("publish queue full ({} waiting); a publish was dropped", MAX_QUEUED);
        }
    }

    Publish poll(long timeoutMs) throws InterruptedException {
        return queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    public long dropped() {
        return dropped.get();
    }
}

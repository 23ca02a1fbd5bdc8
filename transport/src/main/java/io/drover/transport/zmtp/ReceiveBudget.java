package io.drover.transport.zmtp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes that all connections of one endpoint may hold in messages still arriving. A peer can announce a large
 * frame and send it slowly; each connection is bounded by its {@link ZmtpLimits}, and this bounds their sum, so that
 * ten thousand slow senders cannot fill the heap.
 */
public final class ReceiveBudget {
    private final long max;
    private final AtomicLong used = new AtomicLong();

    public ReceiveBudget(long max) {
        this.max = max;
    }

    public static ReceiveBudget unlimited() {
        return new ReceiveBudget(Long.MAX_VALUE);
    }

    boolean reserve(long bytes) {
        while (true) {
            long now = used.get();
            if (now + bytes > max) {
                return false;
            }
            if (used.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        used.addAndGet(-bytes);
    }

    public long used() {
        return used.get();
    }
}

package io.drover.server.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Small writes from many threads, committed together: a caller's write is queued, and whichever caller holds the
 * writer's turn commits everything queued so far in one transaction, so a thousand instances recording their
 * progress at once cost a few transactions instead of a thousand. {@link #write} returns once the caller's write is
 * committed, as a transaction of its own would. A batch that fails is tried again write by write, so one write that
 * cannot be stored fails alone. No thread of its own: the callers take turns.
 */
public final class GroupCommit {
    /** One write, run inside the batch's transaction; what it returns is handed back to its caller. */
    public interface Write<T> {
        T apply(Handle h);
    }

    private record Pending(Write<?> write, CompletableFuture<Object> done) {
    }

    private final Jdbi jdbi;
    private final int maxBatch;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock turn = new ReentrantLock();

    public GroupCommit(Jdbi jdbi, int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
        }
        this.jdbi = jdbi;
        this.maxBatch = maxBatch;
    }

    /**
     * Runs the write in a transaction, shared with the writes queued beside it; returns what the write returned once
     * it is committed. The write may run twice (when its batch failed, alone after): it must not act outside the
     * handle.
     */
    @SuppressWarnings("unchecked")
    public <T> T write(Write<T> write) {
        Pending mine = new Pending(write, new CompletableFuture<>());
        queue.add(mine);
        turn.lock();
        try {
            while (!mine.done().isDone()) {
                commitQueued();
            }
        } finally {
            turn.unlock();
        }
        try {
            return (T) mine.done().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Writes waiting for their turn. */
    int queued() {
        return queue.size();
    }

    private void commitQueued() {
        List<Pending> batch = new ArrayList<>();
        for (Pending p; batch.size() < maxBatch && (p = queue.poll()) != null; ) {
            batch.add(p);
        }
        try {
            List<Object> results = jdbi.inTransaction(h -> {
                List<Object> out = new ArrayList<>(batch.size());
                batch.forEach(p -> out.add(p.write().apply(h)));
                return out;
            });
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).done().complete(results.get(i));
            }
        } catch (RuntimeException batchFailed) {
            if (batch.size() == 1) {
                batch.getFirst().done().completeExceptionally(batchFailed);
                return;
            }
            for (Pending p : batch) {
                try {
                    p.done().complete(jdbi.inTransaction(h -> p.write().apply(h)));
                } catch (RuntimeException alone) {
                    p.done().completeExceptionally(alone);
                }
            }
        }
    }
}

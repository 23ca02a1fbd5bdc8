package io.drover.transport.minion;

import io.drover.transport.wire.SaltPack;
import io.drover.transport.zmtp.ZmtpConnection;
import io.drover.transport.zmtp.ZmtpLimits;
import io.drover.transport.zmtp.ZmtpLoop;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A minion's sockets on a {@link ZmtpLoop} (its own, or one shared by the fleet load tool's thousands of simulated
 * minions): a DEALER for requests (one at a time; a fresh connection after a timeout, so that a late reply is never
 * read as the answer to the next request) and a SUB whose payloads the minion's loop thread takes from a queue.
 * The same ZMTP bytes on the wire as ZeroMQ's sockets; every frame from the master is bounded by
 * {@link SaltPack#MAX_FRAME} before it is read.
 */
public final class ZmtpMinionTransport implements MinionTransport {
    private static final ZmtpLimits LIMITS = ZmtpLimits.client(SaltPack.MAX_FRAME);
    /** Publishes waiting for the minion's checks; more are dropped (as a ZeroMQ SUB at its high-water mark). */
    private static final int QUEUED_PUBLISHES = 10_000;
    private final java.util.concurrent.atomic.AtomicLong droppedPublishes = new java.util.concurrent.atomic.AtomicLong();

    private static final byte[] EMPTY = new byte[0];
    /** Put on a subscription's queue when its connection closes. */
    private static final byte[] CLOSED = new byte[0];

    private final MinionConfig config;
    private final ZmtpLoop loop;
    private final boolean ownLoop;
    private final ReentrantLock requestLock = new ReentrantLock();
    /** Guarded by requestLock; volatile so that close() can reach it while a request waits. */
    private volatile Dealer dealer;
    private volatile MinionConfig.Master dealerMaster;
    private volatile ZmtpConnection subscription;
    private volatile boolean open = true;

    /** An agent's transport, on a loop of its own. */
    public ZmtpMinionTransport(MinionConfig config) {
        this(config, new ZmtpLoop("zmtp-" + config.id()), true);
    }

    /** A transport on a shared loop (closed by its owner). */
    public ZmtpMinionTransport(MinionConfig config, ZmtpLoop loop) {
        this(config, loop, false);
    }

    private ZmtpMinionTransport(MinionConfig config, ZmtpLoop loop, boolean ownLoop) {
        this.config = config;
        this.loop = loop;
        this.ownLoop = ownLoop;
    }

    @Override
    public Thread.Builder loopThread() {
        return ownLoop ? Thread.ofPlatform().daemon() : Thread.ofVirtual();
    }

    @Override
    public byte[] request(MinionConfig.Master master, byte[] frame) {
        return request(master, frame, config.requestTimeout(), config.tries());
    }

    /**
     * A refused or reset connection is tried again after a jittered pause when the minion has one master (it may be
     * restarting); with several it is tried again at once, and after the last try the minion moves to the next.
     */
    @Override
    public byte[] request(MinionConfig.Master master, byte[] frame, java.time.Duration timeout, int tries) {
        requestLock.lock();
        try {
            if (dealer != null && !master.equals(dealerMaster)) {
                dealer.connection.close();
                dealer = null;
            }
            for (int attempt = 1; attempt <= tries && open; attempt++) {
                Dealer d = dealer;
                if (d == null || d.closed) {
                    d = new Dealer();
                    d.connection = loop.connect(new InetSocketAddress(master.host(), master.requestPort()), "DEALER",
                            List.of(), LIMITS, d);
                    dealer = d;
                    dealerMaster = master;
                }
                CompletableFuture<byte[]> reply = d.send(frame);
                try {
                    return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // no answer: a late reply must not be read as the answer to the next request
                } catch (ExecutionException e) {
                    if (config.masters().size() == 1 && attempt < tries) {
                        pause(); // refused or reset: the master may be restarting
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                d.connection.close();
                dealer = null;
            }
            throw new RequestTimeoutException();
        } finally {
            requestLock.unlock();
        }
    }

    private void pause() {
        try {
            Thread.sleep(1000 + ThreadLocalRandom.current().nextLong(1 + config.reconnectJitter().toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The request connection's handler: completes the waiting request with the last frame of the reply. */
    private static final class Dealer implements ZmtpConnection.Handler {
        volatile ZmtpConnection connection;
        volatile CompletableFuture<byte[]> waiting;
        volatile boolean closed;

        /** Sends a request; the future fails at once if the connection is (or gets) closed. */
        CompletableFuture<byte[]> send(byte[] frame) {
            CompletableFuture<byte[]> reply = new CompletableFuture<>();
            waiting = reply;
            if (!connection.send(EMPTY, frame) || closed) {
                reply.completeExceptionally(new java.io.IOException("connection closed"));
            }
            return reply;
        }

        @Override
        public void onMessage(ZmtpConnection connection, List<byte[]> frames) {
            CompletableFuture<byte[]> w = waiting;
            if (w != null) {
                w.complete(frames.getLast());
            }
        }

        @Override
        public void onClosed(ZmtpConnection connection) {
            closed = true;
            CompletableFuture<byte[]> w = waiting;
            if (w != null) {
                w.completeExceptionally(new java.io.IOException("connection closed"));
            }
        }
    }

    @Override
    public void subscribe(String host, int port, List<byte[]> prefixes, Consumer<byte[]> onPayload, BooleanSupplier keepGoing) {
        LinkedBlockingQueue<byte[]> payloads = new LinkedBlockingQueue<>(QUEUED_PUBLISHES);
        ZmtpConnection sub = loop.connect(new InetSocketAddress(host, port), "SUB", prefixes, LIMITS, new ZmtpConnection.Handler() {
            @Override
            public void onMessage(ZmtpConnection connection, List<byte[]> frames) {
                if (!payloads.offer(frames.getLast())) {
                    droppedPublishes.incrementAndGet();
                }
            }

            @Override
            public void onClosed(ZmtpConnection connection) {
                payloads.clear(); // the minion signs in again: what was queued is of the old session
                payloads.add(CLOSED);
            }
        });
        subscription = sub;
        try {
            while (open && keepGoing.getAsBoolean()) {
                byte[] payload = payloads.poll(1, TimeUnit.SECONDS);
                if (payload == CLOSED) {
                    return; // the minion signs in again, which waits for the master to come back
                }
                if (payload != null) {
                    onPayload.accept(payload);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sub.close();
        }
    }

    @Override
    public void close() {
        open = false;
        Dealer d = dealer;
        if (d != null) {
            d.connection.close();
        }
        ZmtpConnection s = subscription;
        if (s != null) {
            s.close();
        }
        if (ownLoop) {
            loop.close();
        }
    }
}

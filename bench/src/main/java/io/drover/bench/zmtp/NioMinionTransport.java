package io.drover.bench.zmtp;

import io.drover.transport.minion.MinionConfig;
import io.drover.transport.minion.MinionTransport;
import io.drover.transport.minion.RequestTimeoutException;
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
 * A simulated minion's sockets on a shared {@link ZmtpLoop}: a DEALER for requests (one at a time, a fresh
 * connection after a timeout, as {@link io.drover.transport.minion.JeroMqTransport}) and a SUB whose payloads the
 * minion's loop thread (virtual) takes from a queue. Same ZMTP bytes on the wire as a ZeroMQ socket.
 */
public final class NioMinionTransport implements MinionTransport {
    private static final byte[] EMPTY = new byte[0];
    /** Put on a subscription's queue when its connection closes. */
    private static final byte[] CLOSED = new byte[0];

    private final MinionConfig config;
    private final ZmtpLoop loop;
    private final ReentrantLock requestLock = new ReentrantLock();
    /** Guarded by requestLock; volatile so that close() can reach it while a request waits. */
    private volatile Dealer dealer;
    private volatile ZmtpConnection subscription;
    private volatile boolean open = true;

    public NioMinionTransport(MinionConfig config, ZmtpLoop loop) {
        this.config = config;
        this.loop = loop;
    }

    @Override
    public Thread.Builder loopThread() {
        return Thread.ofVirtual();
    }

    @Override
    public byte[] request(byte[] frame) {
        requestLock.lock();
        try {
            for (int attempt = 1; attempt <= config.tries() && open; attempt++) {
                Dealer d = dealer;
                if (d == null || d.closed) {
                    d = new Dealer();
                    d.connection = loop.connect(new InetSocketAddress(config.masterHost(), config.requestPort()), "DEALER",
                            List.of(), d);
                    dealer = d;
                }
                CompletableFuture<byte[]> reply = d.send(frame);
                try {
                    return reply.get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // no answer: a late reply must not be read as the answer to the next request
                } catch (ExecutionException e) {
                    pause(); // refused or reset: the master may be restarting
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
        public void onMessage(List<byte[]> frames) {
            CompletableFuture<byte[]> w = waiting;
            if (w != null) {
                w.complete(frames.getLast());
            }
        }

        @Override
        public void onClosed() {
            closed = true;
            CompletableFuture<byte[]> w = waiting;
            if (w != null) {
                w.completeExceptionally(new java.io.IOException("connection closed"));
            }
        }
    }

    @Override
    public void subscribe(String host, int port, List<byte[]> prefixes, Consumer<byte[]> onPayload, BooleanSupplier keepGoing) {
        LinkedBlockingQueue<byte[]> payloads = new LinkedBlockingQueue<>();
        ZmtpConnection sub = loop.connect(new InetSocketAddress(host, port), "SUB", prefixes, new ZmtpConnection.Handler() {
            @Override
            public void onMessage(List<byte[]> frames) {
                payloads.add(frames.getLast());
            }

            @Override
            public void onClosed() {
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
    }
}

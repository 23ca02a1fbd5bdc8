package io.drover.transport.zmtp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread and one selector serving any number of ZMTP connections, dialled ({@link #connect}) or accepted by a
 * {@link ZmtpListener}. A failure while serving one connection (a protocol error, a stack overflow or an
 * out-of-memory error while decoding what it sent) closes that connection only. The loop notes the time of every
 * turn, so that a supervisor can tell a live loop from a dead or stuck one ({@link #alive}).
 */
public final class ZmtpLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZmtpLoop.class);
    /** A connection whose handshake has not finished by then is closed (a half-open or silent peer). */
    static final long HANDSHAKE_NANOS = 5_000_000_000L;
    /** A loop that has not turned for this long is stuck. */
    private static final long STUCK_NANOS = 10_000_000_000L;
    private static final long CHECK_EVERY_NANOS = 250_000_000L;

    /** Something the selector can wake: a connection or a listener. */
    interface Selectable {
        void onReady(int ops, ByteBuffer scratch);

        void close();
    }

    private final Selector selector;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(256 * 1024);
    private final Set<ZmtpConnection> handshaking = ConcurrentHashMap.newKeySet();
    private final Set<ZmtpListener> listeners = ConcurrentHashMap.newKeySet();
    private final LongSupplier nanos;
    private final Thread thread;
    private volatile long lastTurn;
    private volatile boolean open = true;

    public ZmtpLoop(String name) {
        this(name, System::nanoTime);
    }

    public ZmtpLoop(String name, LongSupplier nanos) {
        this.nanos = nanos;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.lastTurn = nanos.getAsLong();
        this.thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    long nanos() {
        return nanos.getAsLong();
    }

    /**
     * Opens a client connection of the given ZMTP socket type ("SUB", "DEALER"); a SUB's subscriptions follow its
     * handshake. Returns at once; sends made before the connection is up are queued.
     */
    public ZmtpConnection connect(InetSocketAddress address, String socketType, List<byte[]> subscriptions,
                                  ZmtpLimits limits, ZmtpConnection.Handler handler) {
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ZmtpStats stats = new ZmtpStats(socketType);
        stats.opened();
        ZmtpConnection connection = new ZmtpConnection(this, channel, socketType, limits, ReceiveBudget.unlimited(),
                stats, handler);
        subscriptions.forEach(prefix -> connection.send(Zmtp.subscription(prefix)));
        handshaking.add(connection);
        execute(() -> connection.connect(selector, address));
        return connection;
    }

    /** Loop thread: takes an accepted channel into the loop. */
    void adopt(ZmtpConnection connection) {
        handshaking.add(connection);
        connection.accepted(selector);
    }

    SelectionKey register(ZmtpListener listener, java.nio.channels.ServerSocketChannel channel) throws IOException {
        listeners.add(listener);
        return channel.register(selector, SelectionKey.OP_ACCEPT, listener);
    }

    void forget(ZmtpConnection connection) {
        handshaking.remove(connection);
    }

    /** Runs a task on the loop thread. */
    public void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** Whether the loop thread runs and has turned within the last ten seconds. */
    public boolean alive() {
        return open && thread.isAlive() && nanos.getAsLong() - lastTurn < STUCK_NANOS;
    }

    private void run() {
        try {
            turn();
        } catch (Throwable t) {
            // Not expected (a peer's failure closes its connection only): the loop is gone, alive() says so.
            log.error("{}: the loop stopped", thread.getName(), t);
        }
    }

    private void turn() {
        long nextCheck = 0;
        while (open) {
            try {
                selector.select(1000);
            } catch (IOException e) {
                log.error("{}: the selector failed; the loop stops", thread.getName(), e);
                return;
            }
            long now = nanos.getAsLong();
            lastTurn = now;
            for (Runnable task; (task = tasks.poll()) != null; ) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.warn("{}: a task failed", thread.getName(), e);
                }
            }
            for (SelectionKey key : selector.selectedKeys()) {
                serve(key);
            }
            selector.selectedKeys().clear();
            if (now - nextCheck > 0) {
                nextCheck = now + CHECK_EVERY_NANOS;
                handshaking.removeIf(c -> c.expireHandshake(now));
                listeners.forEach(l -> l.resumeIfDue(now));
            }
        }
    }

    private void serve(SelectionKey key) {
        Selectable target = (Selectable) key.attachment();
        try {
            target.onReady(key.readyOps(), scratch);
        } catch (CancelledKeyException e) {
            target.close();
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // What one peer sent broke something: that peer's connection goes, the loop and the others stay.
            log.warn("{}: closed a connection after {}", thread.getName(), e.toString());
            target.close();
        }
    }

    /** Stops the loop and closes the selector and every listener (connections are closed by their owners). */
    @Override
    public void close() {
        open = false;
        listeners.forEach(ZmtpListener::close);
        selector.wakeup();
        try {
            thread.join(2000);
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Selectable s) {
                    s.close();
                }
            }
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }
}

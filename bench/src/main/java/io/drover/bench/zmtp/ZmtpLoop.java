package io.drover.bench.zmtp;

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
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One thread and one selector serving any number of ZMTP client connections: the fleet load tool's thousands of
 * simulated minions cost one epoll wake-up and one read per delivered message, instead of a socket mailbox and a
 * waiting thread per socket as with a ZeroMQ context.
 */
public final class ZmtpLoop implements AutoCloseable {
    private final Selector selector;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(256 * 1024);
    private final Thread thread;
    private volatile boolean open = true;

    public ZmtpLoop(String name) {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    /**
     * Opens a client connection of the given ZMTP socket type ("SUB", "DEALER"); a SUB's subscriptions follow its
     * handshake. Returns at once; sends made before the connection is up are queued.
     */
    public ZmtpConnection connect(InetSocketAddress address, String socketType, List<byte[]> subscriptions,
                                  ZmtpConnection.Handler handler) {
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ZmtpConnection connection = new ZmtpConnection(this, channel, socketType, handler);
        subscriptions.forEach(prefix -> connection.send(Zmtp.subscription(prefix)));
        execute(() -> connection.start(selector, address));
        return connection;
    }

    /** Runs a task on the loop thread. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    private void run() {
        while (open) {
            try {
                selector.select(1000);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Runnable task; (task = tasks.poll()) != null; ) {
                task.run();
            }
            for (SelectionKey key : selector.selectedKeys()) {
                ZmtpConnection connection = (ZmtpConnection) key.attachment();
                try {
                    connection.onReady(key.readyOps(), scratch);
                } catch (CancelledKeyException e) {
                    connection.close();
                }
            }
            selector.selectedKeys().clear();
        }
    }

    /** Stops the loop and closes the selector (connections are closed by their owners). */
    @Override
    public void close() {
        open = false;
        selector.wakeup();
        try {
            thread.join(2000);
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

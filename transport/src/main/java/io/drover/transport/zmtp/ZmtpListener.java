package io.drover.transport.zmtp;

import java.io.IOException;
import java.io.UncheckedIOException;
import io.drover.transport.admission.ConnectionsPerAddress;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import jdk.net.ExtendedSocketOptions;

/**
 * A listening port on a {@link ZmtpLoop}: accepts connections up to a maximum, and from each source address up to
 * its own limit (beyond either a new connection is closed at once, before anything is allocated for it, and counted
 * as refused) and gives each to the owner's handler. When accepting fails (out of file descriptors, say), the
 * listener stops accepting for a moment instead of spinning. Accepted sockets use TCP keep-alive probes after a
 * minute of silence, so that half-open connections of vanished hosts are found and closed.
 */
public final class ZmtpListener implements ZmtpLoop.Selectable {
    private static final long PAUSE_NANOS = 200_000_000L;

    private final ZmtpLoop loop;
    private final ServerSocketChannel server;
    private final String socketType;
    private final ZmtpLimits limits;
    private final int maxConnections;
    private final ReceiveBudget budget;
    private final ZmtpStats stats;
    private final ZmtpConnection.Handler handler;
    private final ConnectionsPerAddress perAddress;
    /** The owner's handler, and the per-address count released when a connection closes. */
    private final ZmtpConnection.Handler releasing;
    private final int port;
    private SelectionKey key;
    private long pausedUntil;
    private boolean paused;

    /**
     * Binds {@code host:port} (0: any free port) and starts accepting on the loop.
     *
     * @throws PortInUseException when the port is taken
     */
    public ZmtpListener(ZmtpLoop loop, String host, int port, String socketType, ZmtpLimits limits, int maxConnections,
                        ConnectionsPerAddress perAddress, ReceiveBudget budget, ZmtpStats stats, ZmtpConnection.Handler handler) {
        this.loop = loop;
        this.perAddress = perAddress;
        this.releasing = new ZmtpConnection.Handler() {
            @Override
            public void onMessage(ZmtpConnection connection, java.util.List<byte[]> frames) throws ZmtpException {
                handler.onMessage(connection, frames);
            }

            @Override
            public void onClosed(ZmtpConnection connection) {
                perAddress.release(connection.source());
                handler.onClosed(connection);
            }
        };
        this.socketType = socketType;
        this.limits = limits;
        this.maxConnections = maxConnections;
        this.budget = budget;
        this.stats = stats;
        this.handler = handler;
        try {
            this.server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            try {
                server.bind(new InetSocketAddress(host.equals("*") ? "0.0.0.0" : host, port), 10_000);
            } catch (BindException e) {
                server.close();
                throw new PortInUseException(host, port);
            }
            server.configureBlocking(false);
            this.port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        java.util.concurrent.CompletableFuture<Void> registered = new java.util.concurrent.CompletableFuture<>();
        loop.execute(() -> {
            try {
                key = loop.register(this, server);
                registered.complete(null);
            } catch (IOException | RuntimeException e) {
                registered.completeExceptionally(e);
            }
        });
        registered.join();
    }

    public int port() {
        return port;
    }

    public ZmtpStats stats() {
        return stats;
    }

    @Override
    public void onReady(int ops, ByteBuffer scratch) {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                stats.refused("accept failed: " + e.getMessage() + "; pausing accepts for 200 ms");
                pause();
                return;
            }
            if (channel == null) {
                return;
            }
            if (stats.openConnections() >= maxConnections) {
                stats.refused("already " + maxConnections + " connections on port " + port);
                closeQuietly(channel);
                continue;
            }
            InetAddress source = sourceOf(channel);
            if (source == null) {
                closeQuietly(channel); // (reset before it could be looked at)
                continue;
            }
            if (!perAddress.admit(source)) {
                stats.refusedFromAddress(source, perAddress.limit());
                closeQuietly(channel);
                continue;
            }
            try {
                channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
                if (channel.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
                    channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 60);
                    channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 10);
                    channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
                }
            } catch (IOException e) {
                perAddress.release(source);
                closeQuietly(channel);
                continue;
            }
            stats.opened();
            ZmtpConnection connection = new ZmtpConnection(loop, channel, source, socketType, limits, budget, stats, releasing);
            handler.onOpened(connection);
            loop.adopt(connection);
        }
    }

    private void pause() {
        paused = true;
        pausedUntil = loop.nanos() + PAUSE_NANOS;
        if (key != null && key.isValid()) {
            key.interestOps(0);
        }
    }

    /** Loop thread: accepts again after a pause. */
    void resumeIfDue(long now) {
        if (paused && now - pausedUntil > 0 && key != null && key.isValid()) {
            paused = false;
            key.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    private static InetAddress sourceOf(SocketChannel channel) {
        try {
            return channel.getRemoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    /** Stops listening; connections already accepted belong to their owner. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

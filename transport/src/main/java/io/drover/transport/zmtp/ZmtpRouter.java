package io.drover.transport.zmtp;

import io.drover.transport.admission.ConnectionsPerAddress;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of ZeroMQ's ROUTER on one port: every accepted connection gets a number of its own (never taken
 * from the peer, so that one peer cannot pose as another), requests are handed on with it, and replies are routed
 * back by it; a reply for a peer that has gone is dropped, as ZeroMQ does. Requests are handed on with the address
 * they came from, for limits per address.
 */
public final class ZmtpRouter implements ZmtpConnection.Handler, AutoCloseable {
    /** Receives requests on the loop thread: it must hand them off, not work on them. */
    public interface Requests {
        void onRequest(long peer, InetAddress source, List<byte[]> frames);
    }

    private final Map<Long, ZmtpConnection> peers = new ConcurrentHashMap<>();
    private final AtomicLong nextPeer = new AtomicLong();
    private final Requests requests;
    private final ZmtpListener listener;

    public ZmtpRouter(ZmtpLoop loop, String host, int port, ZmtpLimits limits, int maxConnections,
                      ConnectionsPerAddress perAddress, ReceiveBudget budget, ZmtpStats stats, Requests requests) {
        this.requests = requests;
        this.listener = new ZmtpListener(loop, host, port, "ROUTER", limits, maxConnections, perAddress, budget, stats, this);
    }

    public int port() {
        return listener.port();
    }

    public ZmtpStats stats() {
        return listener.stats();
    }

    @Override
    public void onOpened(ZmtpConnection connection) {
        long peer = nextPeer.incrementAndGet();
        connection.attach(peer);
        peers.put(peer, connection);
    }

    @Override
    public void onMessage(ZmtpConnection connection, List<byte[]> frames) {
        requests.onRequest((Long) connection.attachment(), connection.source(), frames);
    }

    @Override
    public void onClosed(ZmtpConnection connection) {
        if (connection.attachment() instanceof Long peer) {
            peers.remove(peer);
        }
    }

    /** Sends a message to one peer; false when it is gone or its queue is full. */
    public boolean send(long peer, byte[]... frames) {
        ZmtpConnection connection = peers.get(peer);
        return connection != null && connection.send(frames);
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        listener.close();
        peers.values().forEach(ZmtpConnection::close);
    }
}

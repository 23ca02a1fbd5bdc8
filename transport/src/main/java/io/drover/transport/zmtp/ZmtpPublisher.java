package io.drover.transport.zmtp;

import io.drover.transport.admission.ConnectionsPerAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server side of ZeroMQ's PUB on one port: subscribers send subscriptions (ZMTP 3.0 messages starting with 1 to
 * subscribe and 0 to cancel, or ZMTP 3.1 SUBSCRIBE and CANCEL commands); a publish goes to every connection with a
 * subscription that is a prefix of its topic, once. Subscriptions are bounded in number and length per connection
 * (a peer over either limit, or sending anything else, is disconnected), and kept in a map from prefix to
 * subscribers, so a publish costs a lookup per prefix length of its topic, not a scan of every subscriber.
 */
public final class ZmtpPublisher implements ZmtpConnection.Handler, AutoCloseable {
    private final Map<String, Set<ZmtpConnection>> subscribers = new ConcurrentHashMap<>();
    private final Set<ZmtpConnection> connections = ConcurrentHashMap.newKeySet();
    private final ZmtpLimits limits;
    private final ZmtpListener listener;

    public ZmtpPublisher(ZmtpLoop loop, String host, int port, ZmtpLimits limits, int maxConnections,
                         ConnectionsPerAddress perAddress, ZmtpStats stats) {
        this.limits = limits;
        this.listener = new ZmtpListener(loop, host, port, "PUB", limits, maxConnections, perAddress,
                new ReceiveBudget(64L * maxConnections * ZmtpLimits.MAX_COMMAND_BYTES), stats, this);
    }

    public int port() {
        return listener.port();
    }

    public ZmtpStats stats() {
        return listener.stats();
    }

    /** Connections that have subscribed to something. */
    public int subscribers() {
        return (int) connections.stream().filter(c -> c.attachment() instanceof Set<?> s && !s.isEmpty()).count();
    }

    @Override
    public void onOpened(ZmtpConnection connection) {
        connection.attach(new HashSet<String>());
        connections.add(connection);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void onMessage(ZmtpConnection connection, List<byte[]> frames) throws ZmtpException {
        byte[] frame = frames.getFirst();
        if (frames.size() != 1 || frame.length == 0 || frame[0] > 1 || frame[0] < 0) {
            throw new ZmtpException("subscription", "a subscriber sent something other than a subscription");
        }
        if (frame.length - 1 > limits.maxSubscriptionBytes()) {
            throw new ZmtpException("subscription", "a subscription of " + (frame.length - 1) + " bytes is over the limit of "
                    + limits.maxSubscriptionBytes());
        }
        String prefix = new String(frame, 1, frame.length - 1, StandardCharsets.ISO_8859_1);
        Set<String> own = (Set<String>) connection.attachment();
        if (frame[0] == 1) {
            if (!own.contains(prefix) && own.size() >= limits.maxSubscriptions()) {
                throw new ZmtpException("subscription", "more than " + limits.maxSubscriptions() + " subscriptions");
            }
            own.add(prefix);
            subscribers.computeIfAbsent(prefix, p -> ConcurrentHashMap.newKeySet()).add(connection);
        } else if (own.remove(prefix)) {
            unsubscribe(prefix, connection);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void onClosed(ZmtpConnection connection) {
        connections.remove(connection);
        if (connection.attachment() instanceof Set<?> own) {
            for (String prefix : (Set<String>) own) {
                unsubscribe(prefix, connection);
            }
        }
    }

    private void unsubscribe(String prefix, ZmtpConnection connection) {
        subscribers.computeIfPresent(prefix, (p, set) -> {
            set.remove(connection);
            return set.isEmpty() ? null : set;
        });
    }

    /** Sends {@code [topic, payload]} to every matching subscriber; returns how many it went to. */
    public int publish(byte[] topic, byte[] payload) {
        ByteBuffer message = Zmtp.message(topic, payload);
        String text = new String(topic, StandardCharsets.ISO_8859_1);
        Set<ZmtpConnection> sent = null;
        int count = 0;
        for (int length = 0; length <= text.length(); length++) {
            Set<ZmtpConnection> matching = subscribers.get(length == text.length() ? text : text.substring(0, length));
            if (matching == null) {
                continue;
            }
            for (ZmtpConnection c : matching) {
                if (sent == null) {
                    sent = Collections.newSetFromMap(new IdentityHashMap<>());
                }
                if (sent.add(c) && c.send(message.duplicate())) {
                    count++;
                }
            }
        }
        return count;
    }

    /** Whether a connection subscribed to exactly {@code topic}. */
    public boolean subscribed(String topic) {
        return subscribers.containsKey(topic);
    }

    /**
     * Sends {@code [topic, payload]} to the connections subscribed to exactly {@code topic}, not to shorter prefixes:
     * for a frame only the holder of one agent's key can read, which nobody else needs. Returns how many it went to.
     */
    public int publishExact(String topic, byte[] payload) {
        Set<ZmtpConnection> matching = subscribers.get(topic);
        if (matching == null) {
            return 0;
        }
        ByteBuffer message = Zmtp.message(topic.getBytes(StandardCharsets.ISO_8859_1), payload);
        int count = 0;
        for (ZmtpConnection c : matching) {
            if (c.send(message.duplicate())) {
                count++;
            }
        }
        return count;
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        listener.close();
        connections.forEach(ZmtpConnection::close);
    }
}

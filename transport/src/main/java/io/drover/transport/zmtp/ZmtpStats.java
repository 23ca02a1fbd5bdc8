package io.drover.transport.zmtp;

import io.drover.transport.logging.RateLimitedLog;
import java.net.InetAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one endpoint has seen: connections open and refused (over the port's cap, or over the per-address limit),
 * connections closed for breaking the protocol or a
 * limit (by kind), messages dropped at a full queue. Protocol errors are logged at most once per kind every ten
 * seconds, with the count of those not logged, so that a flood of bad frames cannot flood the log.
 */
public final class ZmtpStats {
    private static final Logger log = LoggerFactory.getLogger(ZmtpStats.class);

    /** Every kind of protocol error counted: the decoder's ({@link ZmtpException#kind()}) and the handshake deadline. */
    public static final List<String> PROTOCOL_ERROR_KINDS = List.of("greeting", "flags", "oversize", "frames", "command",
            "order", "subscription", "budget", "handshake");

    private final String endpoint;
    private final AtomicLong open = new AtomicLong();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder refusedFromAddress = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final RateLimitedLog warnings = new RateLimitedLog(log);

    public ZmtpStats(String endpoint) {
        this.endpoint = endpoint;
    }

    public String endpoint() {
        return endpoint;
    }

    void opened() {
        open.incrementAndGet();
        accepted.increment();
    }

    void closed() {
        open.decrementAndGet();
    }

    void refused(String why) {
        refused.increment();
        warnings.warn("refused", "{}: refused a connection: {}", endpoint, why);
    }

    void refusedFromAddress(InetAddress source, int limit) {
        refusedFromAddress.increment();
        warnings.warn("refused-address", "{}: refused a connection from {}: it already holds {} (salt-max-connections-per-address)",
                endpoint, source.getHostAddress(), limit);
    }

    void dropped() {
        dropped.increment();
    }

    void protocolError(String kind, String message, SocketChannel channel) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
        String peer;
        try {
            peer = String.valueOf(channel.getRemoteAddress());
        } catch (Exception e) {
            peer = "?";
        }
        warnings.warn(kind, "{}: closed a connection: {} (from {})", endpoint, message, peer);
    }

    public long openConnections() {
        return open.get();
    }

    public long acceptedConnections() {
        return accepted.sum();
    }

    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed at accept because their source address already held its limit. */
    public long refusedFromAddress() {
        return refusedFromAddress.sum();
    }

    public long droppedMessages() {
        return dropped.sum();
    }

    /** Connections closed for a protocol error or a limit, by kind. */
    public Map<String, Long> protocolErrors() {
        Map<String, Long> out = new TreeMap<>();
        errors.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public long protocolErrorTotal() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }
}

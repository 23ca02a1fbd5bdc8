package io.drover.transport.admission;

import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Open connections per source address on one port, at most {@link AddressLimits#maxConnections()} each. An address
 * has an entry only while it holds a counted connection, so the map never has more entries than the port has
 * connections (which its own cap bounds). Admitted on the accepting thread, released wherever a connection closes.
 */
public final class ConnectionsPerAddress {
    private final AddressLimits limits;
    private final Map<InetAddress, Integer> open = new ConcurrentHashMap<>();

    public ConnectionsPerAddress(AddressLimits limits) {
        this.limits = limits;
    }

    public int limit() {
        return limits.maxConnections();
    }

    /** Counts a new connection from {@code source}; false (nothing counted) when it already holds the limit. */
    public boolean admit(InetAddress source) {
        if (!counted(source)) {
            return true;
        }
        boolean[] admitted = {false};
        open.compute(source, (address, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limits.maxConnections()) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    /** A connection that {@link #admit} let in has closed. */
    public void release(InetAddress source) {
        if (counted(source)) {
            open.computeIfPresent(source, (address, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Counted connections open from {@code source}. */
    public int open(InetAddress source) {
        return open.getOrDefault(source, 0);
    }

    /** Addresses holding counted connections. */
    public int addresses() {
        return open.size();
    }

    private boolean counted(InetAddress source) {
        return limits.maxConnections() > 0 && !limits.isExempt(source);
    }
}

package io.drover.transport.admission;

import java.net.InetAddress;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Sign-ins ({@code _auth}) per source address in fixed one-minute windows of the clock: at most
 * {@link AddressLimits#signInsPerMinute()} each, so that one address cannot make the master sign without end (a
 * fixed window lets a source reach twice the limit across the turn of a minute; it costs one counter per address).
 * Memory stays bounded under a flood from many addresses: the counts are dropped at every new minute, and at most
 * {@code maxAddresses} addresses are told apart in a minute; those beyond share one count with the same limit.
 */
public final class SignInsPerAddress {
    public static final int MAX_ADDRESSES = 100_000;

    private final AddressLimits limits;
    private final Clock clock;
    private final int maxAddresses;
    /** Guarded by this. */
    private long minute = Long.MIN_VALUE;
    private Map<InetAddress, int[]> counts = new HashMap<>();
    private int others;

    public SignInsPerAddress(AddressLimits limits, Clock clock) {
        this(limits, clock, MAX_ADDRESSES);
    }

    SignInsPerAddress(AddressLimits limits, Clock clock, int maxAddresses) {
        this.limits = limits;
        this.clock = clock;
        this.maxAddresses = maxAddresses;
    }

    public int limit() {
        return limits.signInsPerMinute();
    }

    /** Counts a sign-in from {@code source}; false (nothing counted) when it had the limit this minute already. */
    public boolean tryAcquire(InetAddress source) {
        Objects.requireNonNull(source, "source");
        int limit = limits.signInsPerMinute();
        if (limit == 0 || limits.isExempt(source)) {
            return true;
        }
        long now = Math.floorDiv(clock.millis(), 60_000L);
        synchronized (this) {
            if (now != minute) { // (also when the clock went back: a new window rather than a stuck one)
                minute = now;
                counts = new HashMap<>();
                others = 0;
            }
            int[] count = counts.get(source);
            if (count == null && counts.size() < maxAddresses) {
                count = new int[1];
                counts.put(source, count);
            }
            if (count == null) {
                if (others >= limit) {
                    return false;
                }
                others++;
                return true;
            }
            if (count[0] >= limit) {
                return false;
            }
            count[0]++;
            return true;
        }
    }

    /** Addresses told apart in the current minute. */
    public synchronized int addresses() {
        return counts.size();
    }
}

package io.drover.core.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seal on every message between the servers of a cluster, so that what reaches one server through NATS is known
 * to come from another server of the same cluster, once, lately: whoever holds only a NATS account can neither forge
 * nor replay a message.
 *
 * <p>A sealed message is {@code "DRC1" | sent at (epoch ms, 8 bytes) | origin (16 bytes) | sequence (8 bytes) |
 * HMAC-SHA256 (32 bytes) | payload}. The MAC covers the subject, every header field and the payload, under a key
 * only the cluster's servers hold. The origin is one run of one server (a random id per run); its sequence counts up
 * from 1. A message is opened only if its MAC is right, it was sent at most {@code window} before or after this
 * server's clock says now (so the servers' clocks must agree within the window: NTP), and its origin's sequence
 * number was not seen before (the last {@value #REPLAY_SPAN} numbers of each origin are remembered; an origin is
 * forgotten once it is quiet for two windows, when anything it sent is too old to be accepted anyway).
 */
public final class ClusterSeal {
    /** Why a message was not opened (the metric's label: its lower-case name). */
    public enum Refusal {
        /** not a sealed message (a plain client's JSON, or a server of a version without the seal) */
        UNSEALED,
        /** sealed, but shorter than its header */
        TRUNCATED,
        /** larger than the limit */
        OVERSIZED,
        /** the MAC does not match: forged, altered, moved to another subject, or sealed under another key */
        FORGED,
        /** sent more than the window ago by its own clock */
        STALE,
        /** sent more than the window ahead of this server's clock */
        FUTURE,
        /** its origin's sequence number was already seen (or is too far behind to tell), or it is this server's own */
        REPLAYED
    }

    /** A message that was not opened, and why. */
    public static final class Refused extends Exception {
        private final Refusal reason;

        Refused(Refusal reason, String detail) {
            super(reason.name().toLowerCase(java.util.Locale.ROOT) + ": " + detail, null, false, false);
            this.reason = reason;
        }

        public Refusal reason() {
            return reason;
        }
    }

    /** An opened message: the run of the server that sent it, and what it sent. */
    public record Opened(UUID origin, long sequence, byte[] payload) {
    }

    static final byte[] MAGIC = "DRC1".getBytes(StandardCharsets.US_ASCII);
    static final int MAC_BYTES = 32;
    /** The bytes a seal adds to a payload. */
    public static final int HEADER = MAGIC.length + 8 + 16 + 8 + MAC_BYTES;
    static final int REPLAY_SPAN = 1024;

    private final SecretKeySpec key;
    private final UUID origin;
    private final Clock clock;
    private final long windowMillis;
    private final int maxPayloadBytes;
    private final AtomicLong sent = new AtomicLong();
    private final Map<UUID, Seen> seen = new HashMap<>();
    private long lastSweep;

    /**
     * @param key             32 bytes or more that only the cluster's servers hold
     * @param origin          this run of this server
     * @param window          how far a message's time may be from this server's clock, either way
     * @param maxPayloadBytes the largest payload opened
     */
    public ClusterSeal(byte[] key, UUID origin, Clock clock, Duration window, int maxPayloadBytes) {
        if (key.length < 32) {
            throw new IllegalArgumentException("the cluster's key must be 32 bytes or more");
        }
        this.key = new SecretKeySpec(key, "HmacSHA256");
        this.origin = origin;
        this.clock = clock;
        this.windowMillis = window.toMillis();
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public UUID origin() {
        return origin;
    }

    /** The payload sealed for {@code subject}, with the next number of this origin's sequence. */
    public byte[] seal(String subject, byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(HEADER + payload.length);
        out.put(MAGIC).putLong(clock.millis()).putLong(origin.getMostSignificantBits())
                .putLong(origin.getLeastSignificantBits()).putLong(sent.incrementAndGet());
        byte[] mac = mac(subject, out.array(), payload);
        out.put(mac).put(payload);
        return out.array();
    }

    /** The payload of a sealed message for {@code subject} and who sent it, or why it is refused. */
    public Opened open(String subject, byte[] message) throws Refused {
        if (message.length < MAGIC.length || !MessageDigest.isEqual(java.util.Arrays.copyOf(message, MAGIC.length), MAGIC)) {
            throw new Refused(Refusal.UNSEALED, "no seal");
        }
        if (message.length < HEADER) {
            throw new Refused(Refusal.TRUNCATED, message.length + " bytes, shorter than the " + HEADER + " of a seal");
        }
        if (message.length - HEADER > maxPayloadBytes) {
            throw new Refused(Refusal.OVERSIZED, (message.length - HEADER) + " bytes, over the limit of " + maxPayloadBytes);
        }
        byte[] payload = java.util.Arrays.copyOfRange(message, HEADER, message.length);
        byte[] mac = java.util.Arrays.copyOfRange(message, HEADER - MAC_BYTES, HEADER);
        if (!MessageDigest.isEqual(mac, mac(subject, message, payload))) {
            throw new Refused(Refusal.FORGED, "its MAC does not match (another cluster's key, or altered)");
        }
        ByteBuffer header = ByteBuffer.wrap(message, MAGIC.length, HEADER - MAGIC.length - MAC_BYTES);
        long sentAt = header.getLong();
        UUID from = new UUID(header.getLong(), header.getLong());
        long sequence = header.getLong();
        long now = clock.millis();
        if (sentAt < now - windowMillis) {
            throw new Refused(Refusal.STALE, "sent " + (now - sentAt) / 1000 + " s ago (clocks apart, or held back)");
        }
        if (sentAt > now + windowMillis) {
            throw new Refused(Refusal.FUTURE, "sent " + (sentAt - now) / 1000 + " s ahead of this server's clock");
        }
        if (from.equals(origin)) {
            throw new Refused(Refusal.REPLAYED, "this server's own message, sent back");
        }
        accept(from, sequence, now);
        return new Opened(from, sequence, payload);
    }

    /** Records the sequence number of an origin, refusing one seen before. */
    private synchronized void accept(UUID from, long sequence, long now) throws Refused {
        if (now - lastSweep > windowMillis) {
            seen.values().removeIf(s -> now - s.lastAccepted > 2 * windowMillis);
            lastSweep = now;
        }
        if (!seen.computeIfAbsent(from, f -> new Seen()).accept(sequence, now)) {
            throw new Refused(Refusal.REPLAYED, "number " + sequence + " of its sender was seen before");
        }
    }

    private byte[] mac(String subject, byte[] header, byte[] payload) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(key);
            byte[] name = subject.getBytes(StandardCharsets.UTF_8);
            hmac.update(ByteBuffer.allocate(4).putInt(name.length).array());
            hmac.update(name);
            hmac.update(header, 0, HEADER - MAC_BYTES);
            return hmac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** The sequence numbers of one origin seen lately: the highest, and which of the span below it. */
    private static final class Seen {
        private long highest;
        private final java.util.BitSet below = new java.util.BitSet(REPLAY_SPAN);
        private long lastAccepted;

        boolean accept(long sequence, long now) {
            if (sequence <= 0) {
                return false;
            }
            if (sequence > highest) {
                long shift = sequence - highest;
                // bit i stands for number highest - 1 - i
                java.util.BitSet moved = new java.util.BitSet(REPLAY_SPAN);
                if (highest > 0 && shift <= REPLAY_SPAN) {
                    moved.set((int) shift - 1);
                }
                for (int i = below.nextSetBit(0); i >= 0 && i + shift < REPLAY_SPAN; i = below.nextSetBit(i + 1)) {
                    moved.set((int) (i + shift));
                }
                below.clear();
                below.or(moved);
                highest = sequence;
            } else {
                long back = highest - sequence;
                if (back == 0 || back > REPLAY_SPAN) {
                    return false;
                }
                if (below.get((int) back - 1)) {
                    return false;
                }
                below.set((int) back - 1);
            }
            lastAccepted = now;
            return true;
        }
    }
}

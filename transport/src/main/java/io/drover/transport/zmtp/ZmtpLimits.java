package io.drover.transport.zmtp;

/**
 * What one connection may cost: the largest message it may send (all frames together, checked from each frame's
 * header before anything is allocated), how many frames a message may have, how many bytes may wait to be written
 * to it before further messages to it are dropped (a slow or stalled reader), and how many subscriptions it may
 * hold with how long a prefix.
 */
public record ZmtpLimits(int maxMessageBytes, int maxFrames, int maxQueuedBytes, int maxSubscriptions,
                         int maxSubscriptionBytes) {
    /** Commands (READY, PING, SUBSCRIBE) are small: a READY with a few properties, a PING with its context. */
    public static final int MAX_COMMAND_BYTES = 4096;

    public ZmtpLimits {
        if (maxMessageBytes < 1 || maxFrames < 1 || maxQueuedBytes < 1 || maxSubscriptions < 0 || maxSubscriptionBytes < 0) {
            throw new IllegalArgumentException("ZMTP limits must be positive");
        }
    }

    /** A client (an agent): publishes and replies of up to {@code maxMessageBytes}, nothing to subscribe to. */
    public static ZmtpLimits client(int maxMessageBytes) {
        return new ZmtpLimits(maxMessageBytes, 8, 64 << 20, 0, 0);
    }
}

package io.drover.transport.minion;

import java.time.Duration;

/**
 * Where the master is and how patient to be. Defaults follow Salt: 60 s per request with 3 tries, 10 s between
 * tries while the key is pending (doubling up to 60 s), reconnects jittered over 1–10 s. The enrollment token
 * travels in the clear sign-in request, like Salt's autosign grains: use short-lived tokens.
 */
public record MinionConfig(String id, String masterHost, int publishPort, int requestPort, Duration requestTimeout,
                           int tries, Duration acceptanceWait, Duration acceptanceWaitMax, Duration reconnectJitter,
                           String enrollToken) {

    public static MinionConfig of(String id, String masterHost, int publishPort, int requestPort) {
        return new MinionConfig(id, masterHost, publishPort, requestPort, Duration.ofSeconds(60), 3,
                Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(9), null);
    }

    public MinionConfig withTimeouts(Duration requestTimeout, Duration acceptanceWait, Duration reconnectJitter) {
        return new MinionConfig(id, masterHost, publishPort, requestPort, requestTimeout, tries, acceptanceWait,
                acceptanceWait.multipliedBy(4), reconnectJitter, enrollToken);
    }

    /** An enrollment token sent with the sign-in ({@code drover_enroll}): a Drover server accepts the key with it. */
    public MinionConfig withEnrollToken(String token) {
        return new MinionConfig(id, masterHost, publishPort, requestPort, requestTimeout, tries, acceptanceWait,
                acceptanceWaitMax, reconnectJitter, token);
    }
}

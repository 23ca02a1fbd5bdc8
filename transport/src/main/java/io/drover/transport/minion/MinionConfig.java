package io.drover.transport.minion;

import java.time.Duration;
import java.util.List;

/**
 * Where the master is and how patient to be. Defaults follow Salt: 60 s per request with 3 tries, 10 s between
 * tries while the key is pending (doubling up to 60 s), reconnects jittered over 1–10 s. The enrollment token
 * travels only encrypted to the master's key (a first sign-in without it learns the key). {@code agentKey}: ask a
 * Drover server for a session key of this minion's own (on by default; a salt-master ignores the request).
 * {@code masterFinger}: the sha256 fingerprint the master's key must have (Salt's {@code master_finger}; null: the
 * key is trusted on first use).
 */
public record MinionConfig(String id, List<Master> masters, Duration requestTimeout,
                           int tries, Duration acceptanceWait, Duration acceptanceWaitMax, Duration reconnectJitter,
                           String enrollToken, Duration failback, boolean agentKey, String masterFinger) {

    /** One master: where its request and publish ports are. */
    public record Master(String host, int publishPort, int requestPort) {
        @Override
        public String toString() {
            return host + ":" + requestPort;
        }

        // Written out: a record's generated equals and hashCode bootstrap java.lang.runtime.ObjectMethods, whose
        // method-handle trees an agent (which compares masters on every request) would keep in metaspace for life.
        @Override
        public boolean equals(Object o) {
            return o instanceof Master m && host.equals(m.host) && publishPort == m.publishPort
                    && requestPort == m.requestPort;
        }

        @Override
        public int hashCode() {
            return (host.hashCode() * 31 + publishPort) * 31 + requestPort;
        }
    }

    public MinionConfig {
        if (masters == null || masters.isEmpty()) {
            throw new IllegalArgumentException("a minion needs at least one master");
        }
        masters = List.copyOf(masters);
    }

    public static MinionConfig of(String id, String masterHost, int publishPort, int requestPort) {
        return new MinionConfig(id, List.of(new Master(masterHost, publishPort, requestPort)), Duration.ofSeconds(60), 3,
                Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(9), null, null, true, null);
    }

    /**
     * Several masters in order of preference (a cluster's servers): the minion signs in to the first that answers
     * and moves to the next, after a jittered pause, when the one it uses stops answering.
     */
    public MinionConfig withMasters(List<Master> list) {
        return new MinionConfig(id, list, requestTimeout, tries, acceptanceWait, acceptanceWaitMax, reconnectJitter,
                enrollToken, failback, agentKey, masterFinger);
    }

    /** The first master: the one a minion with a single master uses. */
    public String masterHost() {
        return masters.getFirst().host();
    }

    public int publishPort() {
        return masters.getFirst().publishPort();
    }

    public int requestPort() {
        return masters.getFirst().requestPort();
    }

    public MinionConfig withTimeouts(Duration requestTimeout, Duration acceptanceWait, Duration reconnectJitter) {
        return new MinionConfig(id, masters, requestTimeout, tries, acceptanceWait,
                acceptanceWait.multipliedBy(4), reconnectJitter, enrollToken, failback, agentKey, masterFinger);
    }

    /** An enrollment token sent with the sign-in, sealed to the master's key: a Drover server accepts the key with it. */
    public MinionConfig withEnrollToken(String token) {
        return new MinionConfig(id, masters, requestTimeout, tries, acceptanceWait,
                acceptanceWaitMax, reconnectJitter, token, failback, agentKey, masterFinger);
    }

    /** Signs in on the shared session key as a salt-minion does (for tests of what a salt-minion gets). */
    public MinionConfig withSharedKeyOnly() {
        return new MinionConfig(id, masters, requestTimeout, tries, acceptanceWait, acceptanceWaitMax, reconnectJitter,
                enrollToken, failback, false, masterFinger);
    }

    /**
     * Back to the first master of the list once it answers again, checked every {@code interval} while the minion
     * uses another (null: stay where it is). The masters must share the session key (a Drover cluster's servers do).
     */
    public MinionConfig withFailback(Duration interval) {
        return new MinionConfig(id, masters, requestTimeout, tries, acceptanceWait, acceptanceWaitMax, reconnectJitter,
                enrollToken, interval, agentKey, masterFinger);
    }

    /** Refuses any master whose key does not have this sha256 fingerprint (colons and case do not matter). */
    public MinionConfig withMasterFinger(String finger) {
        return new MinionConfig(id, masters, requestTimeout, tries, acceptanceWait, acceptanceWaitMax, reconnectJitter,
                enrollToken, failback, agentKey, finger);
    }

    /** Whether a master key's fingerprint is the one asked for (always, when none is). */
    public boolean trustsMasterFinger(String fingerprint) {
        return masterFinger == null || normalFinger(masterFinger).equals(normalFinger(fingerprint));
    }

    /** A fingerprint as lower-case hex without separators. */
    public static String normalFinger(String finger) {
        return finger.replace(":", "").strip().toLowerCase(java.util.Locale.ROOT);
    }
}

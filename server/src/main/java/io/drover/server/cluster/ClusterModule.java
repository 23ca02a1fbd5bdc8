package io.drover.server.cluster;

import io.drover.core.cluster.ClusterSeal;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.store.SecretBox;
import io.drover.transport.envelope.JobPublisher;
import io.drover.transport.master.PublishQueue;
import io.drover.transport.master.SessionKey;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Locale;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's parts, when this server is one of several: the session key all servers share (so that an agent moving
 * between them keeps its session), the NATS connection that carries jobs, events and returns between them, and the
 * work leases. On a server alone only the leases exist (and always hold).
 */
public final class ClusterModule implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterModule.class);

    /**
     * What the module needs: {@code url} is NATS's address, null on a server alone (then {@code credentials} is not
     * read); {@code publishes} this server's
     * own queue to its agents; {@code secrets} the key every server of the cluster holds.
     */
    public record Needs(String url, Supplier<NatsCredentials> credentials, Jdbi jdbi, SecretBox secrets,
                        SessionKey session, PublishQueue publishes, EventStore events, EventBus bus, Clock clock) {
    }

    private final SessionKey session;
    private final PublishQueue publishes;
    /** Null on a server alone. */
    private final SharedSessionKey sharedKey;
    /** Null on a server alone. */
    private final NatsCluster nats;
    private final WorkLeaseStore leases;

    public ClusterModule(Needs needs) {
        this.session = needs.session();
        this.publishes = needs.publishes();
        this.sharedKey = needs.url() == null ? null : new SharedSessionKey(
                new SessionKeyStore(needs.jdbi(), needs.secrets(), SessionKey::newKeyString, needs.events(), needs.clock()),
                needs.session());
        // Cluster messages are sealed under a key derived from the secret key every server of the cluster holds
        // (it opens the shared session key), which neither NATS nor the agents know.
        this.nats = needs.url() == null ? null : NatsCluster.join(needs.url(), needs.credentials().get(),
                needs.secrets().derive(NatsCluster.KEY_LABEL), needs.clock(), needs.publishes(), needs.bus());
        this.leases = new WorkLeaseStore(needs.jdbi(), needs.clock(), nats == null);
    }

    public boolean joined() {
        return nats != null;
    }

    /** Where a job goes: to this server's agents and, in a cluster, through NATS to every other server's. */
    public JobPublisher publisher() {
        return nats == null ? publishes : (load, agents) -> {
            publishes.publish(load, agents);
            nats.publish(load, agents);
        };
    }

    /** A new session key: for this server alone, or for every server of the cluster. */
    public void rotateSession() {
        if (sharedKey == null) {
            session.rotate();
        } else {
            sharedKey.rotate();
        }
    }

    /** Follows another server's rotation of the shared session key. */
    public void followPeers(EventBus bus) {
        if (sharedKey != null) {
            bus.subscribeToPeers(e -> e.tag().equals(SessionKeyStore.ROTATED), e -> sharedKey.refresh());
        }
    }

    /** Renews the leases of the work this server runs (and rereads the shared key, in case a rotation was missed). */
    public void renew() {
        leases.renew();
        if (sharedKey != null) {
            sharedKey.refresh();
        }
    }

    /** Counts of cluster messages refused, by reason. */
    public void bindMetrics(MeterRegistry metrics) {
        if (nats == null) {
            return;
        }
        for (ClusterSeal.Refusal reason : ClusterSeal.Refusal.values()) {
            FunctionCounter.builder("drover.cluster.messages.refused", nats, c -> c.refused(reason))
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .description("Cluster messages dropped: not sealed under this cluster's key, too old or new, or seen before")
                    .register(metrics);
        }
    }

    /** Says where this server joined, and warns when NATS was given no credentials. */
    public void logJoined(String url) {
        if (nats == null) {
            return;
        }
        NatsCredentials credentials = nats.credentials();
        log.info("cluster: joined NATS at {} with credentials: {}", NatsCluster.withoutSecrets(url), credentials.kinds());
        if (credentials.none()) {
            log.warn("cluster: --cluster-insecure: NATS was given no credentials, so anyone who reaches it reads every job,"
                    + " event and return of the cluster and can flood it (cluster messages are still sealed, so nobody"
                    + " without the secret key can forge one); give the servers credentials (docs/operations.md)");
        }
    }

    public WorkLeaseStore leases() {
        return leases;
    }

    /** The routes' view: null on a server alone. */
    public NatsCluster nats() {
        return nats;
    }

    public SharedSessionKey sharedKey() {
        return sharedKey;
    }

    @Override
    public void close() {
        if (nats != null) {
            nats.close();
        }
    }
}

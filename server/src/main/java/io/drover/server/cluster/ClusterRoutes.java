package io.drover.server.cluster;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.Role;
import io.drover.model.cluster.ClusterStatus;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;
import java.util.Locale;

/** What this server is in its cluster: for operators checking who does what. */
public final class ClusterRoutes {
    private final WorkLeaseStore leases;
    private final Leadership leadership;
    private final NatsCluster cluster;
    private final SharedSessionKey sessionKey;

    /** @param cluster null for a server on its own, and {@code sessionKey} with it */
    public ClusterRoutes(WorkLeaseStore leases, Leadership leadership, NatsCluster cluster, SharedSessionKey sessionKey) {
        this.leases = leases;
        this.leadership = leadership;
        this.cluster = cluster;
        this.sessionKey = sessionKey;
    }

    public void register(HttpApi api) {
        api.get(API + "/cluster", Role.ADMIN, Scope.ALL_BUSINESSES,
                "This server in its cluster: its id, whether NATS is connected, the periodic duties it holds, the shared "
                        + "session key's generation, the credentials it gave NATS and whether it runs without (--cluster-insecure)", ClusterStatus.class,
                Shape.ONE, ctx -> ctx.json(new ClusterStatus(leases.server(), cluster != null, cluster != null && cluster.connected(),
                        leadership.held().stream().map(d -> d.name().toLowerCase(Locale.ROOT)).sorted().toList(),
                        sessionKey == null ? null : sessionKey.generation(),
                        cluster == null ? null : cluster.credentials().kinds(), cluster != null && cluster.credentials().none())));
    }
}

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

    /** @param cluster null for a server on its own */
    public ClusterRoutes(WorkLeaseStore leases, Leadership leadership, NatsCluster cluster) {
        this.leases = leases;
        this.leadership = leadership;
        this.cluster = cluster;
    }

    public void register(HttpApi api) {
        api.get(API + "/cluster", Role.ADMIN, Scope.ALL_BUSINESSES,
                "This server in its cluster: its id, whether NATS is connected, the periodic duties it holds", ClusterStatus.class,
                Shape.ONE, ctx -> ctx.json(new ClusterStatus(leases.server(), cluster != null, cluster != null && cluster.connected(),
                        leadership.held().stream().map(d -> d.name().toLowerCase(Locale.ROOT)).sorted().toList())));
    }
}

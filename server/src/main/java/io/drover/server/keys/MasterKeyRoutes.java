package io.drover.server.keys;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.Role;
import io.drover.model.keys.MasterKeyInfo;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;

/** {@code GET /api/v1/master}: the master key agents pin, and its fingerprint for {@code --master-finger}. */
public final class MasterKeyRoutes {
    private final MasterKeyInfo master;

    public MasterKeyRoutes(MasterKeyInfo master) {
        this.master = master;
    }

    public void register(HttpApi api) {
        api.get(API + "/master", Role.VIEWER, Scope.SHARED, "The master key agents pin and its sha256 fingerprint (drover agent --master-finger)",
                MasterKeyInfo.class, Shape.ONE, ctx -> ctx.json(master));
    }
}

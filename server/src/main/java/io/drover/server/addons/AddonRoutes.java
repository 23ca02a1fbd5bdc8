package io.drover.server.addons;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.Role;
import io.drover.model.packages.AddonCatalog;
import io.drover.model.packages.AddonChange;
import io.drover.model.packages.AddonInfo;
import io.drover.model.packages.AddonSchema;
import io.drover.model.packages.AddonRequest;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;

/** Addons over REST: list, status, enable, upgrade, disable. */
public final class AddonRoutes {
    private final AddonService addons;

    public AddonRoutes(AddonService addons) {
        this.addons = addons;
    }

    public void register(HttpApi api) {
        api.get(API + "/addons", Role.VIEWER, Scope.SHARED, "Every addon the registries offer or that is enabled",
                AddonCatalog.class, Shape.ONE, ctx -> ctx.json(addons.list()));
        api.get(API + "/addons/{name}", Role.VIEWER, Scope.SHARED, "An addon's status: version, registry, dependencies, masked parameters",
                AddonInfo.class, Shape.ONE, ctx -> ctx.json(addons.status(ctx.pathParam("name"))));
        api.get(API + "/addons/{name}/schema", Role.VIEWER, Scope.SHARED,
                "The parameters an addon version takes, as a JSON Schema (?version=; default: the enabled one, else the newest offered)",
                AddonSchema.class, Shape.ONE, ctx -> ctx.json(addons.schema(ctx.pathParam("name"), Params.text(ctx, "version", 100))));
        api.post(API + "/addons", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Enable an addon and its dependencies ({addon: '[registry/]name[@version]', params, dry_run})",
                AddonRequest.class, AddonChange.class, 201, ctx -> {
                    AddonRequest request = Bodies.read(ctx, AddonRequest.class);
                    AddonChange change = addons.enable(request);
                    ctx.status(change.dryRun() ? 200 : 201).json(change);
                });
        api.post(API + "/addons/{name}/upgrade", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Upgrade (or reconfigure) an enabled addon; stored parameters merged with the new ones, new values win",
                AddonRequest.class, AddonChange.class, 200,
                ctx -> ctx.json(addons.upgrade(ctx.pathParam("name"), Bodies.read(ctx, AddonRequest.class))));
        api.delete(API + "/addons/{name}", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Disable an addon and delete its stored parameters (?force=true even if other addons require it)",
                ctx -> addons.disable(ctx.pathParam("name"), Params.flag(ctx, "force")));
    }
}

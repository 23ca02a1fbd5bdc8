package io.drover.server.packages;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.Role;
import io.drover.model.packages.PackageInfo;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;

/** The package store over REST: upload a .tgz (the raw body), list, show, delete. */
public final class PackageRoutes {
    private final PackageStore store;

    public PackageRoutes(PackageStore store) {
        this.store = store;
    }

    public void register(HttpApi api) {
        api.bodyLimit(io.javalin.http.HandlerType.POST, API + "/packages", PackageStore.MAX_UPLOAD_BYTES);
        api.post(API + "/packages", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Upload a package (.tgz as the body, Content-Type application/gzip); ?force=true replaces the same version",
                null, PackageInfo.class, 201,
                ctx -> ctx.json(store.upload(ctx.bodyInputStream(), Params.flag(ctx, "force"))));
        api.get(API + "/packages", Role.VIEWER, Scope.SHARED, "List stored packages (?name= for one plugin's versions)",
                PackageInfo.class, Shape.LIST, ctx -> ctx.json(store.list(ctx.queryParam("name"))));
        api.get(API + "/packages/{name}/{version}", Role.VIEWER, Scope.SHARED, "One stored package with its metadata",
                PackageInfo.class, Shape.ONE,
                ctx -> ctx.json(store.get(ctx.pathParam("name"), ctx.pathParam("version"))));
        api.delete(API + "/packages/{name}/{version}", Role.ADMIN, Scope.ALL_BUSINESSES,
                "Delete a stored version (refused while an enabled addon uses it)",
                ctx -> store.delete(ctx.pathParam("name"), ctx.pathParam("version")));
    }
}

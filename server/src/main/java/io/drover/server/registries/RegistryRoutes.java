package io.drover.server.registries;

import static io.drover.server.http.HttpApi.API;

import io.drover.model.auth.Role;
import io.drover.model.packages.RegistryInfo;
import io.drover.model.packages.RegistryRequest;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Route.Shape;

/** Registries over REST, in lookup order. */
public final class RegistryRoutes {
    private final Registries registries;

    public RegistryRoutes(Registries registries) {
        this.registries = registries;
    }

    public void register(HttpApi api) {
        api.get(API + "/registries", Role.VIEWER, Scope.SHARED, "List registries in lookup order (the package store is searched first)",
                RegistryInfo.class, Shape.LIST, ctx -> ctx.json(registries.list()));
        api.post(API + "/registries", Role.ADMIN, Scope.ALL_BUSINESSES, "Add a registry at the end of the lookup order",
                RegistryRequest.class, RegistryInfo.class, 201,
                ctx -> ctx.json(registries.add(Bodies.read(ctx, RegistryRequest.class))));
        api.delete(API + "/registries/{name}", Role.ADMIN, Scope.ALL_BUSINESSES, "Remove a registry (enabled addons and stored packages stay)",
                ctx -> registries.remove(ctx.pathParam("name")));
    }
}

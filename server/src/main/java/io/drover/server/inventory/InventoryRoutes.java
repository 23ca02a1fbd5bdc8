package io.drover.server.inventory;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.Json;
import io.drover.model.auth.Role;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.HostMove;
import io.drover.model.inventory.ImportProgressLine;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.InventoryDocument;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.model.inventory.Topology;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.ProgressStream;
import io.drover.server.http.Route.Shape;

/** REST routes of the inventory (CMDB). */
public final class InventoryRoutes {
    /** Largest inventory document imported in one request. */
    public static final long IMPORT_MAX_BYTES = 256L << 20;
    private final InventoryService inventory;
    private final InventoryImport inventoryImport;

    public InventoryRoutes(InventoryService inventory, InventoryImport inventoryImport) {
        this.inventory = inventory;
        this.inventoryImport = inventoryImport;
    }

    public void register(HttpApi api) {
        api.get(API + "/businesses", Role.VIEWER, Scope.BUSINESS, "List businesses", Business.class, Shape.LIST,
                ctx -> ctx.json(inventory.businesses(principal(ctx))));
        api.post(API + "/businesses", Role.OPERATOR, Scope.BUSINESS, "Create a business (with its idle set and module)",
                Business.class, Business.class, 201,
                ctx -> ctx.json(inventory.createBusiness(principal(ctx), Bodies.read(ctx, Business.class))));
        api.get(API + "/businesses/{bk_biz_id}", Role.VIEWER, Scope.BUSINESS, "Get a business", Business.class, Shape.ONE,
                ctx -> ctx.json(inventory.business(principal(ctx), Params.pathId(ctx, "bk_biz_id"))));
        api.put(API + "/businesses/{bk_biz_id}", Role.OPERATOR, Scope.BUSINESS, "Rename a business or replace its attributes",
                Business.class, Business.class, ctx -> ctx.json(inventory.updateBusiness(principal(ctx),
                        Params.pathId(ctx, "bk_biz_id"), Bodies.read(ctx, Business.class))));
        api.delete(API + "/businesses/{bk_biz_id}", Role.OPERATOR, Scope.BUSINESS, "Delete a business that has no hosts",
                ctx -> inventory.deleteBusiness(principal(ctx), Params.pathId(ctx, "bk_biz_id")));
        api.get(API + "/businesses/{bk_biz_id}/topology", Role.VIEWER, Scope.BUSINESS,
                "The business's sets and modules with host and service-instance counts", Topology.class, Shape.ONE,
                ctx -> ctx.json(inventory.topology(principal(ctx), Params.pathId(ctx, "bk_biz_id"))));

        api.get(API + "/sets", Role.VIEWER, Scope.BUSINESS, "List sets (?bk_biz_id=)", TopoSet.class, Shape.LIST,
                ctx -> ctx.json(inventory.sets(principal(ctx), Params.queryId(ctx, "bk_biz_id"))));
        api.post(API + "/sets", Role.OPERATOR, Scope.BUSINESS, "Create a set", TopoSet.class, TopoSet.class, 201,
                ctx -> ctx.json(inventory.createSet(principal(ctx), Bodies.read(ctx, TopoSet.class))));
        api.get(API + "/sets/{bk_set_id}", Role.VIEWER, Scope.BUSINESS, "Get a set", TopoSet.class, Shape.ONE,
                ctx -> ctx.json(inventory.set(principal(ctx), Params.pathId(ctx, "bk_set_id"))));
        api.put(API + "/sets/{bk_set_id}", Role.OPERATOR, Scope.BUSINESS, "Rename a set", TopoSet.class, TopoSet.class,
                ctx -> ctx.json(inventory.updateSet(principal(ctx), Params.pathId(ctx, "bk_set_id"),
                        Bodies.read(ctx, TopoSet.class))));
        api.delete(API + "/sets/{bk_set_id}", Role.OPERATOR, Scope.BUSINESS, "Delete a set whose modules are empty",
                ctx -> inventory.deleteSet(principal(ctx), Params.pathId(ctx, "bk_set_id")));

        api.get(API + "/modules", Role.VIEWER, Scope.BUSINESS, "List modules (?bk_biz_id=, ?bk_set_id=)", TopoModule.class, Shape.LIST,
                ctx -> ctx.json(inventory.modules(principal(ctx), Params.queryId(ctx, "bk_biz_id"),
                        Params.queryId(ctx, "bk_set_id"))));
        api.post(API + "/modules", Role.OPERATOR, Scope.BUSINESS, "Create a module", TopoModule.class, TopoModule.class, 201,
                ctx -> ctx.json(inventory.createModule(principal(ctx), Bodies.read(ctx, TopoModule.class))));
        api.get(API + "/modules/{bk_module_id}", Role.VIEWER, Scope.BUSINESS, "Get a module", TopoModule.class, Shape.ONE,
                ctx -> ctx.json(inventory.module(principal(ctx), Params.pathId(ctx, "bk_module_id"))));
        api.put(API + "/modules/{bk_module_id}", Role.OPERATOR, Scope.BUSINESS, "Rename a module", TopoModule.class, TopoModule.class,
                ctx -> ctx.json(inventory.updateModule(principal(ctx), Params.pathId(ctx, "bk_module_id"),
                        Bodies.read(ctx, TopoModule.class))));
        api.delete(API + "/modules/{bk_module_id}", Role.OPERATOR, Scope.BUSINESS, "Delete an empty module",
                ctx -> inventory.deleteModule(principal(ctx), Params.pathId(ctx, "bk_module_id")));

        api.get(API + "/hosts", Role.VIEWER, Scope.BUSINESS,
                "List hosts under a topology node (?bk_biz_id=, ?bk_set_id=, ?bk_module_id=), whose name or address holds ?q="
                        + " (case-insensitive), paged (?offset=, ?limit=)",
                Host.class, Shape.PAGE, ctx -> ctx.json(inventory.hosts(principal(ctx), Params.queryId(ctx, "bk_biz_id"),
                        Params.queryId(ctx, "bk_set_id"), Params.queryId(ctx, "bk_module_id"), Params.text(ctx, "q", 200),
                        Params.offset(ctx), Params.limit(ctx))));
        api.post(API + "/hosts", Role.OPERATOR, Scope.BUSINESS, "Create a host (in its business's idle module unless modules are given)",
                Host.class, Host.class, 201,
                ctx -> ctx.json(inventory.createHost(principal(ctx), Bodies.read(ctx, Host.class))));
        api.get(API + "/hosts/{bk_host_id}", Role.VIEWER, Scope.BUSINESS, "Get a host", Host.class, Shape.ONE,
                ctx -> ctx.json(inventory.host(principal(ctx), Params.pathId(ctx, "bk_host_id"))));
        api.put(API + "/hosts/{bk_host_id}", Role.OPERATOR, Scope.BUSINESS, "Replace a host's fields and attributes", Host.class,
                Host.class, ctx -> ctx.json(inventory.updateHost(principal(ctx), Params.pathId(ctx, "bk_host_id"),
                        Bodies.read(ctx, Host.class))));
        api.delete(API + "/hosts/{bk_host_id}", Role.OPERATOR, Scope.BUSINESS, "Delete a host that has no service instances",
                ctx -> inventory.deleteHost(principal(ctx), Params.pathId(ctx, "bk_host_id")));
        api.post(API + "/hosts/{bk_host_id}/move", Role.OPERATOR, Scope.BUSINESS,
                "Move a host to modules, or to another business's idle module", HostMove.class, Host.class, 200,
                ctx -> ctx.json(inventory.moveHost(principal(ctx), Params.pathId(ctx, "bk_host_id"),
                        Bodies.read(ctx, HostMove.class))));

        api.get(API + "/service-instances", Role.VIEWER, Scope.BUSINESS,
                "List service instances under a topology node or on a host (?bk_biz_id=, ?bk_set_id=, ?bk_module_id=, ?bk_host_id=), paged",
                ServiceInstance.class, Shape.PAGE, ctx -> ctx.json(inventory.serviceInstances(principal(ctx),
                        Params.queryId(ctx, "bk_biz_id"), Params.queryId(ctx, "bk_set_id"),
                        Params.queryId(ctx, "bk_module_id"), Params.queryId(ctx, "bk_host_id"), Params.offset(ctx),
                        Params.limit(ctx))));
        api.post(API + "/service-instances", Role.OPERATOR, Scope.BUSINESS, "Create a service instance", ServiceInstance.class,
                ServiceInstance.class, 201, ctx -> ctx.json(inventory.createServiceInstance(principal(ctx),
                        Bodies.read(ctx, ServiceInstance.class))));
        api.get(API + "/service-instances/{id}", Role.VIEWER, Scope.BUSINESS, "Get a service instance", ServiceInstance.class, Shape.ONE,
                ctx -> ctx.json(inventory.serviceInstance(principal(ctx), Params.pathId(ctx, "id"))));
        api.put(API + "/service-instances/{id}", Role.OPERATOR, Scope.BUSINESS, "Replace a service instance", ServiceInstance.class,
                ServiceInstance.class, ctx -> ctx.json(inventory.updateServiceInstance(principal(ctx),
                        Params.pathId(ctx, "id"), Bodies.read(ctx, ServiceInstance.class))));
        api.delete(API + "/service-instances/{id}", Role.OPERATOR, Scope.BUSINESS, "Delete a service instance",
                ctx -> inventory.deleteServiceInstance(principal(ctx), Params.pathId(ctx, "id")));

        // An export of a real fleet must import back: 100,000 hosts are about 20 MB of JSON.
        api.bodyLimit(io.javalin.http.HandlerType.POST, API + "/inventory/import", IMPORT_MAX_BYTES);
        api.post(API + "/inventory/import", Role.OPERATOR, Scope.BUSINESS,
                "Import a whole inventory document (JSON, or YAML with Content-Type application/yaml) in one transaction;"
                        + " with Accept: application/x-ndjson, progress lines {\"progress\":{\"written\",\"total\"}} come"
                        + " first and the last line is {\"result\":…} or {\"error\":problem}",
                InventoryDocument.class, ImportResult.class, 200,
                ctx -> {
                    InventoryDocument doc = Bodies.read(ctx, InventoryDocument.class);
                    ProgressStream.respond(ctx, progress -> inventoryImport.importDocument(principal(ctx), doc,
                            (written, total) -> progress.accept(new ImportProgressLine(written, total))));
                });
        api.get(API + "/inventory/export", Role.VIEWER, Scope.BUSINESS,
                "Export the inventory (?bk_biz_id= for one business; ?format=yaml for YAML)", InventoryDocument.class,
                Shape.ONE, ctx -> {
                    InventoryDocument doc = inventory.export(principal(ctx), Params.queryId(ctx, "bk_biz_id"));
                    if ("yaml".equals(ctx.queryParam("format"))) {
                        ctx.contentType("application/yaml").result(Json.yaml().writeValueAsString(doc));
                    } else {
                        ctx.json(doc);
                    }
                });
    }
}

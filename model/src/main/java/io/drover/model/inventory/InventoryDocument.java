package io.drover.model.inventory;

import java.util.List;

/** The bulk import/export document: every inventory object, flat, with explicit ids. */
public record InventoryDocument(
        List<Business> businesses,
        List<TopoSet> sets,
        List<TopoModule> modules,
        List<Host> hosts,
        List<ServiceInstance> serviceInstances) {

    public InventoryDocument {
        businesses = businesses == null ? List.of() : List.copyOf(businesses);
        sets = sets == null ? List.of() : List.copyOf(sets);
        modules = modules == null ? List.of() : List.copyOf(modules);
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        serviceInstances = serviceInstances == null ? List.of() : List.copyOf(serviceInstances);
    }
}

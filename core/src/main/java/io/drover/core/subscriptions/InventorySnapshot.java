package io.drover.core.subscriptions;

import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The part of the CMDB a scope is resolved against: hosts, modules and service instances, indexed once. */
public final class InventorySnapshot {
    private final List<Host> hostList;
    private final Map<Long, TopoModule> modules;
    private final Map<Long, ServiceInstance> services;
    private final Map<Long, List<Host>> hostsByModule = new HashMap<>();
    private final Map<Long, List<ServiceInstance>> servicesByModule = new HashMap<>();
    /** Built on first use: only scopes with target hosts, listed hosts or service instances need it. */
    private Map<Long, Host> hostsById;
    /** Built on first use: only scopes that list hosts by address need it. */
    private Map<String, Host> hostsByAddress;

    public InventorySnapshot(List<Host> hosts, List<TopoModule> modules, List<ServiceInstance> services) {
        this.hostList = List.copyOf(hosts);
        this.modules = new HashMap<>();
        this.services = new HashMap<>();
        for (TopoModule m : modules) {
            this.modules.put(m.bkModuleId(), m);
        }
        for (Host h : hosts) {
            for (Long module : h.bkModuleIds()) {
                hostsByModule.computeIfAbsent(module, k -> new ArrayList<>()).add(h);
            }
        }
        for (ServiceInstance s : services) {
            this.services.put(s.id(), s);
            servicesByModule.computeIfAbsent(s.bkModuleId(), k -> new ArrayList<>()).add(s);
        }
    }

    static String address(long cloudId, String ip) {
        return cloudId + ":" + ip;
    }

    public synchronized Host host(long id) {
        if (hostsById == null) {
            hostsById = new HashMap<>();
            for (Host h : hostList) {
                hostsById.put(h.bkHostId(), h);
            }
        }
        return hostsById.get(id);
    }

    public synchronized Host hostByAddress(long cloudId, String ip) {
        if (hostsByAddress == null) {
            hostsByAddress = new HashMap<>();
            for (Host h : hostList) {
                hostsByAddress.put(address(h.bkCloudId() == null ? 0 : h.bkCloudId(), h.bkHostInnerip()), h);
            }
        }
        return hostsByAddress.get(address(cloudId, ip));
    }

    public ServiceInstance service(long id) {
        return services.get(id);
    }

    public TopoModule module(long id) {
        return modules.get(id);
    }

    public Iterable<TopoModule> modules() {
        return modules.values();
    }

    public List<Host> hostsOfModule(long moduleId) {
        return hostsByModule.getOrDefault(moduleId, List.of());
    }

    public List<ServiceInstance> servicesOfModule(long moduleId) {
        return servicesByModule.getOrDefault(moduleId, List.of());
    }
}

package io.drover.core.subscriptions;

import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionSpec.Node;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns a scope into instances (docs/architecture.md, "Inventory model" and "Subscriptions"): HOST or SERVICE objects under TOPO nodes (business, set,
 * module; dynamic) or listed as INSTANCE nodes (static). Duplicates collapse to one instance; an
 * {@code instance_selector} keeps the instances whose fields match. Nodes that match nothing are reported.
 */
public final class ScopeResolver {
    /** The instances in id order, and the nodes that named nothing that exists. */
    public record Resolution(List<ScopeInstance> instances, List<String> missing) {
    }

    private ScopeResolver() {
    }

    public static Resolution resolve(long subscriptionId, SubscriptionSpec spec, InventorySnapshot inventory) {
        SubscriptionSpec.Scope scope = spec.scope();
        boolean service = "SERVICE".equals(scope.objectType());
        List<Long> targets = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        if (spec.targetHosts() != null) {
            for (Node n : spec.targetHosts()) {
                Host h = hostOf(n, inventory);
                if (h == null) {
                    missing.add("target host " + describe(n));
                } else if (!targets.contains(h.bkHostId())) {
                    targets.add(h.bkHostId());
                }
            }
        }
        Map<String, ScopeInstance> instances = new LinkedHashMap<>();
        for (Node node : scope.nodes()) {
            long biz = node.bkBizId() != null ? node.bkBizId() : scope.bkBizId();
            int before = instances.size();
            if ("TOPO".equals(scope.nodeType())) {
                for (TopoModule m : inventory.modules()) {
                    if (m.bkBizId() == biz && inNode(m, node)) {
                        if (service) {
                            inventory.servicesOfModule(m.bkModuleId()).forEach(s -> addService(instances, subscriptionId, s, inventory, targets));
                        } else {
                            inventory.hostsOfModule(m.bkModuleId()).stream().filter(h -> Objects.equals(h.bkBizId(), biz))
                                    .forEach(h -> addHost(instances, subscriptionId, h, targets));
                        }
                    }
                }
                if (instances.size() == before && !topoNodeExists(node, biz, inventory)) {
                    missing.add(describe(node) + " in business " + biz);
                }
            } else if (service) {
                ServiceInstance s = node.id() == null ? null : inventory.service(node.id());
                if (s == null || !Objects.equals(s.bkBizId(), biz)) {
                    missing.add(describe(node) + " in business " + biz);
                } else {
                    addService(instances, subscriptionId, s, inventory, targets);
                }
            } else {
                Host h = hostOf(node, inventory);
                if (h == null || !Objects.equals(h.bkBizId(), biz)) {
                    missing.add(describe(node) + " in business " + biz);
                } else {
                    addHost(instances, subscriptionId, h, targets);
                }
            }
        }
        List<ScopeInstance> selected = instances.values().stream()
                .filter(i -> Selector.matches(scope.instanceSelector(), i)).sorted(java.util.Comparator.comparing(ScopeInstance::instanceId)).toList();
        return new Resolution(selected, missing);
    }

    private static boolean inNode(TopoModule m, Node node) {
        return switch (String.valueOf(node.bkObjId())) {
            case "biz" -> true;
            case "set" -> Objects.equals(m.bkSetId(), node.bkInstId());
            case "module" -> Objects.equals(m.bkModuleId(), node.bkInstId());
            default -> false;
        };
    }

    private static boolean topoNodeExists(Node node, long biz, InventorySnapshot inventory) {
        for (TopoModule m : inventory.modules()) {
            if (m.bkBizId() == biz && inNode(m, node)) {
                return true;
            }
        }
        return false;
    }

    private static Host hostOf(Node n, InventorySnapshot inventory) {
        if (n.bkHostId() != null) {
            return inventory.host(n.bkHostId());
        }
        if (n.ip() != null) {
            return inventory.hostByAddress(n.bkCloudId() == null ? 0 : n.bkCloudId(), n.ip());
        }
        return null;
    }

    private static void addHost(Map<String, ScopeInstance> out, long sub, Host h, List<Long> targets) {
        String id = ScopeInstance.hostInstanceId(h.bkHostId());
        out.putIfAbsent(id, new ScopeInstance(id, ScopeInstance.hostGroupId(sub, h.bkHostId()), h, null,
                targets.isEmpty() ? List.of(h.bkHostId()) : List.copyOf(targets)));
    }

    private static void addService(Map<String, ScopeInstance> out, long sub, ServiceInstance s, InventorySnapshot inv,
                                   List<Long> targets) {
        Host h = inv.host(s.bkHostId());
        if (h == null) {
            return;
        }
        String id = ScopeInstance.serviceInstanceId(s.id());
        out.putIfAbsent(id, new ScopeInstance(id, ScopeInstance.serviceGroupId(sub, s.id()), h, s,
                targets.isEmpty() ? List.of(h.bkHostId()) : List.copyOf(targets)));
    }

    static String describe(Node n) {
        if (n.bkObjId() != null) {
            return n.bkObjId() + " " + n.bkInstId();
        }
        if (n.bkHostId() != null) {
            return "host " + n.bkHostId();
        }
        if (n.ip() != null) {
            return "host " + n.ip() + " (cloud " + (n.bkCloudId() == null ? 0 : n.bkCloudId()) + ")";
        }
        return "service instance " + n.id();
    }
}

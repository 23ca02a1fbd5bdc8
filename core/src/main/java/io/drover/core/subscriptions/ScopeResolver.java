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
import java.util.function.Function;

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
        return resolve(subscriptionId, spec, inventory, id -> null);
    }

    /**
     * As {@link #resolve(long, SubscriptionSpec, InventorySnapshot)}, with the instances resolved before
     * ({@code known}: instance id → instance, or null): an instance found there keeps its id strings and target list
     * when they are equal, so that a large scope holds them once, not once per resolution.
     */
    public static Resolution resolve(long subscriptionId, SubscriptionSpec spec, InventorySnapshot inventory,
                                     Function<String, ScopeInstance> known) {
        SubscriptionSpec.Scope scope = spec.scope();
        // The subscription's business is the wall: a node or target host of another business is reported and
        // resolves to nothing, whatever business the node names and wherever its object moved since.
        long biz = scope.bkBizId();
        boolean service = "SERVICE".equals(scope.objectType());
        List<Long> targets = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        boolean fixedTargets = spec.targetHosts() != null && !spec.targetHosts().isEmpty();
        if (fixedTargets) {
            for (Node n : spec.targetHosts()) {
                Host h = hostOf(n, inventory);
                if (h == null) {
                    missing.add("target " + describe(n));
                } else if (!Objects.equals(h.bkBizId(), biz)) {
                    missing.add("target " + describe(n) + outside(h.bkBizId(), biz));
                } else if (!targets.contains(h.bkHostId())) {
                    targets.add(h.bkHostId());
                }
            }
            if (targets.isEmpty()) {
                missing.add("no target host is in business " + biz + ": no instance is planned");
                return new Resolution(List.of(), missing);
            }
        }
        Builder instances = new Builder(subscriptionId, biz, List.copyOf(targets), known);
        for (Node node : scope.nodes()) {
            if (node.bkBizId() != null && node.bkBizId() != biz) {
                missing.add(describe(node) + outside(node.bkBizId(), biz));
                continue;
            }
            int before = instances.size();
            if ("TOPO".equals(scope.nodeType())) {
                for (TopoModule m : inventory.modules()) {
                    if (m.bkBizId() == biz && inNode(m, node)) {
                        if (service) {
                            inventory.servicesOfModule(m.bkModuleId()).forEach(s -> instances.addService(s, inventory));
                        } else {
                            inventory.hostsOfModule(m.bkModuleId()).forEach(instances::addHost);
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
                    instances.addService(s, inventory);
                }
            } else {
                Host h = hostOf(node, inventory);
                if (h == null || !Objects.equals(h.bkBizId(), biz)) {
                    missing.add(describe(node) + " in business " + biz);
                } else {
                    instances.addHost(h);
                }
            }
        }
        List<ScopeInstance> selected = instances.byId.values().stream()
                .filter(i -> Selector.matches(scope.instanceSelector(), i)).sorted(java.util.Comparator.comparing(ScopeInstance::instanceId)).toList();
        return new Resolution(selected, missing);
    }

    private static String outside(Long objectBiz, long biz) {
        return " in business " + objectBiz + ": outside the subscription's business " + biz;
    }

    private static boolean inNode(TopoModule m, Node node) {
        return switch (String.valueOf(node.bkObjId())) {
            case "biz" -> Objects.equals(m.bkBizId(), node.bkInstId());
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

    /** The instances found so far by id, the first kept when an object is found twice. */
    private static final class Builder {
        private final long subscriptionId;
        private final long biz;
        private final List<Long> fixedTargets;
        private final Function<String, ScopeInstance> known;
        private final Map<String, ScopeInstance> byId = new LinkedHashMap<>();

        Builder(long subscriptionId, long biz, List<Long> fixedTargets, Function<String, ScopeInstance> known) {
            this.subscriptionId = subscriptionId;
            this.biz = biz;
            this.fixedTargets = fixedTargets;
            this.known = known;
        }

        int size() {
            return byId.size();
        }

        /** A host, or a service instance's host, of another business is never an instance. */
        void addHost(Host h) {
            if (!Objects.equals(h.bkBizId(), biz)) {
                return;
            }
            String id = ScopeInstance.hostInstanceId(h.bkHostId());
            if (!byId.containsKey(id)) {
                add(id, ScopeInstance.hostGroupId(subscriptionId, h.bkHostId()), h, null);
            }
        }

        void addService(ServiceInstance s, InventorySnapshot inv) {
            Host h = inv.host(s.bkHostId());
            if (h == null || !Objects.equals(h.bkBizId(), biz) || !Objects.equals(s.bkBizId(), biz)) {
                return;
            }
            String id = ScopeInstance.serviceInstanceId(s.id());
            if (!byId.containsKey(id)) {
                add(id, ScopeInstance.serviceGroupId(subscriptionId, s.id()), h, s);
            }
        }

        private void add(String id, String groupId, Host h, ServiceInstance s) {
            List<Long> targets = fixedTargets.isEmpty() ? List.of(h.bkHostId()) : fixedTargets;
            ScopeInstance before = known.apply(id);
            if (before != null && before.instanceId().equals(id)) {
                id = before.instanceId();
                groupId = before.groupId().equals(groupId) ? before.groupId() : groupId;
                targets = before.targetHosts().equals(targets) ? before.targetHosts() : targets;
            }
            byId.put(id, new ScopeInstance(id, groupId, h, s, targets));
        }
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

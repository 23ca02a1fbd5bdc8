package io.drover.server.inventory;

import io.drover.core.inventory.InventoryRules;
import io.drover.model.api.Page;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.HostMove;
import io.drover.model.inventory.InventoryDocument;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.model.inventory.Topology;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * Inventory reads and single-object changes (the bulk import is {@link InventoryImport}). Each change is one
 * transaction that validates first, checks the caller's businesses, writes, and appends one event per changed object
 * (with before and after values) to the outbox; the events are published after commit. A refused call changes
 * nothing and emits nothing.
 */
public final class InventoryService {
    public static final String IDLE_SET_NAME = "idle pool";
    public static final String IDLE_MODULE_NAME = "idle host";
    private static final Principal AGENT_REGISTRATION = Principal.system("agent-registration");

    private final Jdbi jdbi;
    private final InventoryStore repo;
    private final InventoryWrites writes;

    public InventoryService(Jdbi jdbi, InventoryStore repo, EventStore events) {
        this.jdbi = jdbi;
        this.repo = repo;
        this.writes = new InventoryWrites(jdbi, repo, events);
    }

    // ---------------------------------------------------------------- reads

    public List<Business> businesses(Principal p) {
        return jdbi.withHandle(h -> repo.businesses(h, p.bizFilter()));
    }

    public Business business(Principal p, long id) {
        p.requireBiz(id);
        return jdbi.withHandle(h -> repo.business(h, id)).orElseThrow(() -> DomainException.notFound("business", id));
    }

    public Topology topology(Principal p, long bizId) {
        Business biz = business(p, bizId);
        return jdbi.withHandle(h -> {
            Map<Long, long[]> counts = repo.moduleCounts(h, bizId);
            List<TopoModule> modules = repo.modules(h, bizId, null, null);
            List<Topology.SetTree> sets = new ArrayList<>();
            for (TopoSet set : repo.sets(h, bizId, null)) {
                List<Topology.ModuleLeaf> leaves = modules.stream()
                        .filter(m -> m.bkSetId().equals(set.bkSetId()))
                        .map(m -> {
                            long[] c = counts.getOrDefault(m.bkModuleId(), new long[2]);
                            return new Topology.ModuleLeaf(m.bkModuleId(), m.bkModuleName(), m.idle(), c[0], c[1]);
                        }).toList();
                sets.add(new Topology.SetTree(set.bkSetId(), set.bkSetName(), leaves));
            }
            return new Topology(bizId, biz.bkBizName(), sets);
        });
    }

    public List<TopoSet> sets(Principal p, Long bizId) {
        if (bizId != null) {
            p.requireBiz(bizId);
        }
        return jdbi.withHandle(h -> repo.sets(h, bizId, p.bizFilter()));
    }

    public TopoSet set(Principal p, long id) {
        TopoSet set = jdbi.withHandle(h -> visible(p, repo.set(h, id), TopoSet::bkBizId, "set", id));
        return set;
    }

    public List<TopoModule> modules(Principal p, Long bizId, Long setId) {
        if (bizId != null) {
            p.requireBiz(bizId);
        }
        if (setId != null) {
            set(p, setId);
        }
        return jdbi.withHandle(h -> repo.modules(h, bizId, setId, p.bizFilter()));
    }

    public TopoModule module(Principal p, long id) {
        TopoModule module = jdbi.withHandle(h -> visible(p, repo.module(h, id), TopoModule::bkBizId, "module", id));
        return module;
    }

    /**
     * The object, when the principal's businesses hold it: to a token limited to businesses another business's object
     * is as missing (404), so that the answer does not tell the two apart.
     */
    private static <T> T visible(Principal p, Optional<T> found, java.util.function.Function<T, Long> business, String kind, long id) {
        return found.filter(o -> p.mayTouch(business.apply(o))).orElseThrow(() -> DomainException.notFound(kind, id));
    }

    /** The business each of these hosts is in now. */
    public Map<Long, Long> hostBusinesses(java.util.Collection<Long> hostIds) {
        return hostIds.isEmpty() ? Map.of() : jdbi.withHandle(h -> repo.hostBusinesses(h, hostIds));
    }

    /**
     * The host a diagnosis or an alert names: by id (digits), else by name or inner address; empty when none or when
     * the name is ambiguous (the caller says so).
     */
    public List<Host> findHosts(String reference) {
        if (reference.matches("\\d{1,18}")) {
            Optional<Host> byId = jdbi.withHandle(h -> repo.host(h, Long.parseLong(reference)));
            if (byId.isPresent()) {
                return List.of(byId.get());
            }
        }
        return jdbi.withHandle(h -> repo.hostsByNameOrAddress(h, reference));
    }

    public Host host(Principal p, long id) {
        Host host = jdbi.withHandle(h -> visible(p, repo.host(h, id), Host::bkBizId, "host", id));
        return host;
    }

    /**
     * Hosts under a business, set or module (the narrowest given), limited to the caller's businesses, and when
     * {@code text} is given to those whose name or inner address holds it.
     */
    public Page<Host> hosts(Principal p, Long bizId, Long setId, Long moduleId, String text, long offset, int limit) {
        TopoFilter filter = filter(p, bizId, setId, moduleId, null);
        return jdbi.withHandle(h -> repo.hosts(h, filter, text, offset, limit));
    }

    public ServiceInstance serviceInstance(Principal p, long id) {
        ServiceInstance s = jdbi.withHandle(h -> visible(p, repo.serviceInstance(h, id), ServiceInstance::bkBizId, "service instance", id));
        return s;
    }

    public Page<ServiceInstance> serviceInstances(Principal p, Long bizId, Long setId, Long moduleId, Long hostId,
                                                  long offset, int limit) {
        if (hostId != null) {
            host(p, hostId);
        }
        TopoFilter filter = filter(p, bizId, setId, moduleId, hostId);
        return jdbi.withHandle(h -> repo.serviceInstances(h, filter, offset, limit));
    }

    private TopoFilter filter(Principal p, Long bizId, Long setId, Long moduleId, Long hostId) {
        if (moduleId != null) {
            module(p, moduleId);
        } else if (setId != null) {
            set(p, setId);
        } else if (bizId != null) {
            business(p, bizId);
        }
        return new TopoFilter(bizId, setId, moduleId, hostId, p.bizFilter());
    }

    public InventoryDocument export(Principal p, Long bizId) {
        if (bizId != null) {
            business(p, bizId);
        }
        List<Long> allowed = bizId != null ? List.of(bizId) : p.bizFilter();
        return jdbi.inTransaction(h -> {
            List<ServiceInstance> services = new ArrayList<>();
            long offset = 0;
            while (true) {
                Page<ServiceInstance> page = repo.serviceInstances(h, new TopoFilter(null, null, null, null, allowed),
                        offset, 10_000);
                services.addAll(page.items());
                offset += page.items().size();
                if (page.items().isEmpty() || offset >= page.total()) {
                    break;
                }
            }
            return new InventoryDocument(repo.businesses(h, allowed), repo.sets(h, null, allowed),
                    repo.modules(h, null, null, allowed), repo.allHosts(h, new TopoFilter(null, null, null, null, allowed)),
                    services);
        });
    }

    // ---------------------------------------------------------------- businesses

    public Business createBusiness(Principal p, Business b) {
        p.requireAllBusinesses("create businesses");
        InventoryWrites.check(InventoryRules.business(b, "", false));
        return writes.write(h -> {
            long id = b.bkBizId() != null ? b.bkBizId() : repo.nextId(h, "business", "bk_biz_id");
            if (repo.business(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "business " + id + " already exists");
            }
            Business created = new Business(id, b.bkBizName().strip(), b.attributes());
            writes.requireFreeBusinessName(h, p, created, "bk_biz_name");
            repo.insertBusiness(h, created);
            writes.changed(h, "business", "created", id, id, null, created);
            writes.ensureIdleModule(h, id);
            return created;
        });
    }

    public Business updateBusiness(Principal p, long id, Business b) {
        p.requireBiz(id);
        InventoryWrites.check(InventoryRules.business(b, "", false));
        requireSameId("bk_biz_id", id, b.bkBizId());
        return writes.write(h -> {
            Business before = repo.business(h, id).orElseThrow(() -> DomainException.notFound("business", id));
            Business after = new Business(id, b.bkBizName().strip(), b.attributes());
            if (after.equals(before)) {
                return before;
            }
            writes.requireFreeBusinessName(h, p, after, "bk_biz_name");
            repo.updateBusiness(h, after);
            writes.changed(h, "business", "updated", id, id, before, after);
            return after;
        });
    }

    public void deleteBusiness(Principal p, long id) {
        p.requireAllBusinesses("delete businesses");
        writes.write(h -> {
            Business before = repo.business(h, id).orElseThrow(() -> DomainException.notFound("business", id));
            long hosts = repo.hostCount(h, id);
            if (hosts > 0) {
                throw DomainException.conflict("not_empty", "business " + id + " still has " + hosts
                        + " host(s); move or delete them first");
            }
            for (TopoModule m : repo.modules(h, id, null, null)) {
                writes.changed(h, "module", "deleted", m.bkModuleId(), id, m, null);
            }
            for (TopoSet s : repo.sets(h, id, null)) {
                writes.changed(h, "set", "deleted", s.bkSetId(), id, s, null);
            }
            repo.deleteBusiness(h, id);
            writes.changed(h, "business", "deleted", id, id, before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- sets

    public TopoSet createSet(Principal p, TopoSet s) {
        InventoryWrites.check(InventoryRules.set(s, "", false));
        p.requireBiz(s.bkBizId());
        return writes.write(h -> {
            writes.requireBusiness(h, s.bkBizId(), "bk_biz_id");
            long id = s.bkSetId() != null ? s.bkSetId() : repo.nextId(h, "topo_set", "bk_set_id");
            if (repo.set(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "set " + id + " already exists");
            }
            TopoSet created = new TopoSet(id, s.bkBizId(), s.bkSetName().strip());
            writes.requireFreeSetName(h, created, "bk_set_name");
            repo.insertSet(h, created);
            writes.changed(h, "set", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    public TopoSet updateSet(Principal p, long id, TopoSet s) {
        return writes.write(h -> {
            TopoSet before = visible(p, repo.set(h, id), TopoSet::bkBizId, "set", id);
            TopoSet after = new TopoSet(id, s.bkBizId() == null ? before.bkBizId() : s.bkBizId(),
                    s.bkSetName() == null ? null : s.bkSetName().strip());
            InventoryWrites.check(InventoryRules.set(after, "", true));
            requireSameId("bk_set_id", id, s.bkSetId());
            if (!after.bkBizId().equals(before.bkBizId())) {
                throw DomainException.invalid("bk_biz_id", "a set cannot move to another business");
            }
            if (after.equals(before)) {
                return before;
            }
            writes.requireFreeSetName(h, after, "bk_set_name");
            repo.updateSet(h, after);
            writes.changed(h, "set", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteSet(Principal p, long id) {
        writes.write(h -> {
            TopoSet before = visible(p, repo.set(h, id), TopoSet::bkBizId, "set", id);
            List<TopoModule> modules = repo.modules(h, null, id, null);
            if (modules.stream().anyMatch(TopoModule::idle)) {
                throw DomainException.conflict("idle_set", "set " + id + " holds the business's idle module and cannot be deleted");
            }
            long occupants = repo.occupants(h, "bk_set_id", id);
            if (occupants > 0) {
                throw DomainException.conflict("not_empty", "set " + id + " still has " + occupants
                        + " host placement(s) or service instance(s) in its modules; move them first");
            }
            for (TopoModule m : modules) {
                writes.changed(h, "module", "deleted", m.bkModuleId(), m.bkBizId(), m, null);
            }
            repo.deleteSet(h, id);
            writes.changed(h, "set", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- modules

    public TopoModule createModule(Principal p, TopoModule m) {
        InventoryWrites.check(InventoryRules.module(m, "", false));
        return writes.write(h -> {
            long id = m.bkModuleId() != null ? m.bkModuleId() : repo.nextId(h, "topo_module", "bk_module_id");
            if (repo.module(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "module " + id + " already exists");
            }
            TopoModule wanted = new TopoModule(id, m.bkSetId(), m.bkBizId(), m.bkModuleName(), m.idle());
            writes.saveModule(h, p, wanted, Optional.empty(), "");
            return repo.module(h, id).orElseThrow();
        });
    }

    public TopoModule updateModule(Principal p, long id, TopoModule m) {
        return writes.write(h -> {
            TopoModule before = visible(p, repo.module(h, id), TopoModule::bkBizId, "module", id);
            requireSameId("bk_module_id", id, m.bkModuleId());
            TopoModule wanted = new TopoModule(id, m.bkSetId() == null ? before.bkSetId() : m.bkSetId(),
                    m.bkBizId() == null ? before.bkBizId() : m.bkBizId(), m.bkModuleName(), m.idle());
            InventoryWrites.check(InventoryRules.module(wanted, "", true));
            writes.saveModule(h, p, wanted, Optional.of(before), "");
            return repo.module(h, id).orElseThrow();
        });
    }

    public void deleteModule(Principal p, long id) {
        writes.write(h -> {
            TopoModule before = visible(p, repo.module(h, id), TopoModule::bkBizId, "module", id);
            if (before.idle()) {
                throw DomainException.conflict("idle_module", "module " + id + " is the business's idle module and cannot be deleted");
            }
            long occupants = repo.occupants(h, "bk_module_id", id);
            if (occupants > 0) {
                throw DomainException.conflict("not_empty", "module " + id + " still has " + occupants
                        + " host(s) or service instance(s); move them first");
            }
            repo.deleteModule(h, id);
            writes.changed(h, "module", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- hosts

    public Host createHost(Principal p, Host host) {
        InventoryWrites.check(InventoryRules.host(host, "", false));
        p.requireBiz(host.bkBizId());
        return writes.write(h -> {
            long id = host.bkHostId() != null ? host.bkHostId() : repo.nextId(h, "host", "bk_host_id");
            if (repo.host(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "host " + id + " already exists");
            }
            Host created = writes.placeHost(h, p, withId(host, id), null, "");
            writes.requireFreeAddress(h, p, created, "bk_host_innerip");
            repo.insertHost(h, created);
            writes.changed(h, "host", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    /**
     * The host an agent runs on: the host with its address (cloud, inner IP) wherever it is, else a new host in the
     * idle module of the agent's business. Used when an accepted agent first reports its facts.
     */
    public Host agentHost(long bizId, long cloudId, String ip, String hostName, String osType, String cpuArch) {
        return writes.write(h -> {
            Optional<Long> existing = repo.hostIdByAddress(h, cloudId, ip);
            if (existing.isPresent()) {
                return repo.host(h, existing.get()).orElseThrow();
            }
            long id = repo.nextId(h, "host", "bk_host_id");
            Host host = new Host(id, bizId, ip, cloudId, hostName, osType, cpuArch, List.of(), Map.of());
            InventoryWrites.check(InventoryRules.host(host, "", false));
            Host created = writes.placeHost(h, AGENT_REGISTRATION, host, null, "");
            repo.insertHost(h, created);
            writes.changed(h, "host", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    /** Rewrites a host's fields; placement changes go through {@link #moveHost}. */
    public Host updateHost(Principal p, long id, Host host) {
        requireSameId("bk_host_id", id, host.bkHostId());
        return writes.write(h -> {
            Host before = visible(p, repo.host(h, id), Host::bkBizId, "host", id);
            if ((host.bkBizId() != null && !host.bkBizId().equals(before.bkBizId()))
                    || (!host.bkModuleIds().isEmpty() && !InventoryWrites.sorted(host.bkModuleIds()).equals(before.bkModuleIds()))) {
                throw DomainException.invalid("bk_module_ids", "a host changes business or modules through POST /api/v1/hosts/"
                        + id + "/move");
            }
            Host after = new Host(id, before.bkBizId(), host.bkHostInnerip(),
                    host.bkCloudId() == null ? 0L : host.bkCloudId(), host.bkHostName(), host.osType(), host.cpuArch(),
                    before.bkModuleIds(), host.attributes());
            InventoryWrites.check(InventoryRules.host(after, "", true));
            if (after.equals(before)) {
                return before;
            }
            writes.requireFreeAddress(h, p, after, "bk_host_innerip");
            repo.updateHost(h, after);
            writes.changed(h, "host", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    /** Moves a host to modules (all of one business), or with only a business to that business's idle module. */
    public Host moveHost(Principal p, long id, HostMove move) {
        List<Long> moduleIds = move.bkModuleIds() == null ? List.of() : move.bkModuleIds();
        if (moduleIds.isEmpty() && move.bkBizId() == null) {
            throw DomainException.invalid(List.of(new FieldError("bk_module_ids", "give target modules, or a bk_biz_id to move to its idle module")));
        }
        return writes.write(h -> {
            Host before = visible(p, repo.host(h, id), Host::bkBizId, "host", id);
            Long targetBiz = move.bkBizId();
            if (targetBiz == null) {
                TopoModule first = writes.requireModule(h, p, moduleIds.getFirst(), "bk_module_ids[0]");
                targetBiz = first.bkBizId();
            }
            Host target = new Host(id, targetBiz, before.bkHostInnerip(), before.bkCloudId(), before.bkHostName(),
                    before.osType(), before.cpuArch(), moduleIds, before.attributes());
            Host after = writes.placeHost(h, p, target, null, "");
            if (after.equals(before)) {
                return before;
            }
            writes.requireServicesKept(h, after, "bk_module_ids");
            repo.updateHost(h, after);
            writes.changed(h, "host", "moved", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteHost(Principal p, long id) {
        writes.write(h -> {
            Host before = visible(p, repo.host(h, id), Host::bkBizId, "host", id);
            List<ServiceInstance> services = repo.serviceInstancesOfHost(h, id);
            if (!services.isEmpty()) {
                throw DomainException.conflict("not_empty", "host " + id + " still has service instance(s) "
                        + services.stream().map(s -> s.name() + " (#" + s.id() + ")").toList() + "; delete them first");
            }
            repo.deleteHost(h, id);
            writes.changed(h, "host", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- service instances

    public ServiceInstance createServiceInstance(Principal p, ServiceInstance s) {
        InventoryWrites.check(InventoryRules.serviceInstance(s, "", false));
        return writes.write(h -> {
            long id = s.id() != null ? s.id() : repo.nextId(h, "service_instance", "id");
            if (repo.serviceInstance(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "service instance " + id + " already exists");
            }
            ServiceInstance created = writes.placeService(h, p, withId(s, id), "");
            repo.insertServiceInstance(h, created);
            writes.changed(h, "service_instance", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    public ServiceInstance updateServiceInstance(Principal p, long id, ServiceInstance s) {
        requireSameId("id", id, s.id());
        InventoryWrites.check(InventoryRules.serviceInstance(withId(s, id), "", true));
        return writes.write(h -> {
            ServiceInstance before = visible(p, repo.serviceInstance(h, id), ServiceInstance::bkBizId, "service instance", id);
            ServiceInstance after = writes.placeService(h, p, withId(s, id), "");
            if (after.equals(before)) {
                return before;
            }
            repo.updateServiceInstance(h, after);
            writes.changed(h, "service_instance", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteServiceInstance(Principal p, long id) {
        writes.write(h -> {
            ServiceInstance before = visible(p, repo.serviceInstance(h, id), ServiceInstance::bkBizId, "service instance", id);
            repo.deleteServiceInstance(h, id);
            writes.changed(h, "service_instance", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    private static void requireSameId(String field, long pathId, Long bodyId) {
        if (bodyId != null && bodyId != pathId) {
            throw DomainException.invalid(field, "is " + bodyId + " but the path names " + pathId);
        }
    }

    private static Host withId(Host h, long id) {
        return new Host(id, h.bkBizId(), h.bkHostInnerip(), h.bkCloudId(), h.bkHostName(), h.osType(), h.cpuArch(),
                h.bkModuleIds(), h.attributes());
    }

    private static ServiceInstance withId(ServiceInstance s, long id) {
        return new ServiceInstance(id, s.name(), s.bkBizId(), s.bkModuleId(), s.bkHostId(), s.labels(), s.processes());
    }
}

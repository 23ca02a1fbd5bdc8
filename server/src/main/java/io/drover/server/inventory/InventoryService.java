package io.drover.server.inventory;

import io.drover.core.inventory.InventoryRules;
import io.drover.model.Json;
import io.drover.model.api.Page;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.HostMove;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.InventoryDocument;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.model.inventory.Topology;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import java.util.ArrayList;
import io.drover.model.auth.Role;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * Inventory changes. Each call is one transaction that validates first, checks the caller's businesses, writes,
 * and appends one event per changed object (with before and after values) to the outbox; the events are
 * published after commit. A refused call changes nothing and emits nothing.
 */
public final class InventoryService {
    public static final String IDLE_SET_NAME = "idle pool";
    public static final String IDLE_MODULE_NAME = "idle host";
    private static final Principal AGENT_REGISTRATION = Principal.system("agent-registration");

    private final Jdbi jdbi;
    private final InventoryRepository repo;
    private final EventStore events;

    public InventoryService(Jdbi jdbi, InventoryRepository repo, EventStore events) {
        this.jdbi = jdbi;
        this.repo = repo;
        this.events = events;
    }

    private enum Outcome { CREATED, UPDATED, UNCHANGED }

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
        TopoSet set = jdbi.withHandle(h -> repo.set(h, id)).orElseThrow(() -> DomainException.notFound("set", id));
        p.requireBiz(set.bkBizId());
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
        TopoModule module = jdbi.withHandle(h -> repo.module(h, id)).orElseThrow(() -> DomainException.notFound("module", id));
        p.requireBiz(module.bkBizId());
        return module;
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
        Host host = jdbi.withHandle(h -> repo.host(h, id)).orElseThrow(() -> DomainException.notFound("host", id));
        p.requireBiz(host.bkBizId());
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
        ServiceInstance s = jdbi.withHandle(h -> repo.serviceInstance(h, id))
                .orElseThrow(() -> DomainException.notFound("service instance", id));
        p.requireBiz(s.bkBizId());
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
        check(InventoryRules.business(b, "", false));
        return write(h -> {
            long id = b.bkBizId() != null ? b.bkBizId() : repo.nextId(h, "business", "bk_biz_id");
            if (repo.business(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "business " + id + " already exists");
            }
            Business created = new Business(id, b.bkBizName().strip(), b.attributes());
            requireFreeBusinessName(h, created, "bk_biz_name");
            repo.insertBusiness(h, created);
            changed(h, "business", "created", id, id, null, created);
            ensureIdleModule(h, id);
            return created;
        });
    }

    public Business updateBusiness(Principal p, long id, Business b) {
        p.requireBiz(id);
        check(InventoryRules.business(b, "", false));
        requireSameId("bk_biz_id", id, b.bkBizId());
        return write(h -> {
            Business before = repo.business(h, id).orElseThrow(() -> DomainException.notFound("business", id));
            Business after = new Business(id, b.bkBizName().strip(), b.attributes());
            if (after.equals(before)) {
                return before;
            }
            requireFreeBusinessName(h, after, "bk_biz_name");
            repo.updateBusiness(h, after);
            changed(h, "business", "updated", id, id, before, after);
            return after;
        });
    }

    public void deleteBusiness(Principal p, long id) {
        p.requireAllBusinesses("delete businesses");
        write(h -> {
            Business before = repo.business(h, id).orElseThrow(() -> DomainException.notFound("business", id));
            long hosts = repo.hostCount(h, id);
            if (hosts > 0) {
                throw DomainException.conflict("not_empty", "business " + id + " still has " + hosts
                        + " host(s); move or delete them first");
            }
            for (TopoModule m : repo.modules(h, id, null, null)) {
                changed(h, "module", "deleted", m.bkModuleId(), id, m, null);
            }
            for (TopoSet s : repo.sets(h, id, null)) {
                changed(h, "set", "deleted", s.bkSetId(), id, s, null);
            }
            repo.deleteBusiness(h, id);
            changed(h, "business", "deleted", id, id, before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- sets

    public TopoSet createSet(Principal p, TopoSet s) {
        check(InventoryRules.set(s, "", false));
        p.requireBiz(s.bkBizId());
        return write(h -> {
            requireBusiness(h, s.bkBizId(), "bk_biz_id");
            long id = s.bkSetId() != null ? s.bkSetId() : repo.nextId(h, "topo_set", "bk_set_id");
            if (repo.set(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "set " + id + " already exists");
            }
            TopoSet created = new TopoSet(id, s.bkBizId(), s.bkSetName().strip());
            requireFreeSetName(h, created, "bk_set_name");
            repo.insertSet(h, created);
            changed(h, "set", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    public TopoSet updateSet(Principal p, long id, TopoSet s) {
        return write(h -> {
            TopoSet before = repo.set(h, id).orElseThrow(() -> DomainException.notFound("set", id));
            p.requireBiz(before.bkBizId());
            TopoSet after = new TopoSet(id, s.bkBizId() == null ? before.bkBizId() : s.bkBizId(),
                    s.bkSetName() == null ? null : s.bkSetName().strip());
            check(InventoryRules.set(after, "", true));
            requireSameId("bk_set_id", id, s.bkSetId());
            if (!after.bkBizId().equals(before.bkBizId())) {
                throw DomainException.invalid("bk_biz_id", "a set cannot move to another business");
            }
            if (after.equals(before)) {
                return before;
            }
            requireFreeSetName(h, after, "bk_set_name");
            repo.updateSet(h, after);
            changed(h, "set", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteSet(Principal p, long id) {
        write(h -> {
            TopoSet before = repo.set(h, id).orElseThrow(() -> DomainException.notFound("set", id));
            p.requireBiz(before.bkBizId());
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
                changed(h, "module", "deleted", m.bkModuleId(), m.bkBizId(), m, null);
            }
            repo.deleteSet(h, id);
            changed(h, "set", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- modules

    public TopoModule createModule(Principal p, TopoModule m) {
        check(InventoryRules.module(m, "", false));
        return write(h -> {
            long id = m.bkModuleId() != null ? m.bkModuleId() : repo.nextId(h, "topo_module", "bk_module_id");
            if (repo.module(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "module " + id + " already exists");
            }
            TopoModule wanted = new TopoModule(id, m.bkSetId(), m.bkBizId(), m.bkModuleName(), m.idle());
            saveModule(h, p, wanted, Optional.empty(), "");
            return repo.module(h, id).orElseThrow();
        });
    }

    public TopoModule updateModule(Principal p, long id, TopoModule m) {
        return write(h -> {
            TopoModule before = repo.module(h, id).orElseThrow(() -> DomainException.notFound("module", id));
            p.requireBiz(before.bkBizId());
            requireSameId("bk_module_id", id, m.bkModuleId());
            TopoModule wanted = new TopoModule(id, m.bkSetId() == null ? before.bkSetId() : m.bkSetId(),
                    m.bkBizId() == null ? before.bkBizId() : m.bkBizId(), m.bkModuleName(), m.idle());
            check(InventoryRules.module(wanted, "", true));
            saveModule(h, p, wanted, Optional.of(before), "");
            return repo.module(h, id).orElseThrow();
        });
    }

    public void deleteModule(Principal p, long id) {
        write(h -> {
            TopoModule before = repo.module(h, id).orElseThrow(() -> DomainException.notFound("module", id));
            p.requireBiz(before.bkBizId());
            if (before.idle()) {
                throw DomainException.conflict("idle_module", "module " + id + " is the business's idle module and cannot be deleted");
            }
            long occupants = repo.occupants(h, "bk_module_id", id);
            if (occupants > 0) {
                throw DomainException.conflict("not_empty", "module " + id + " still has " + occupants
                        + " host(s) or service instance(s); move them first");
            }
            repo.deleteModule(h, id);
            changed(h, "module", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- hosts

    public Host createHost(Principal p, Host host) {
        check(InventoryRules.host(host, "", false));
        p.requireBiz(host.bkBizId());
        return write(h -> {
            long id = host.bkHostId() != null ? host.bkHostId() : repo.nextId(h, "host", "bk_host_id");
            if (repo.host(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "host " + id + " already exists");
            }
            Host created = placeHost(h, p, withId(host, id), null, "");
            requireFreeAddress(h, created, "bk_host_innerip");
            repo.insertHost(h, created);
            changed(h, "host", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    /**
     * The host an agent runs on: the host with its address (cloud, inner IP) wherever it is, else a new host in the
     * idle module of the agent's business. Used when an accepted agent first reports its facts.
     */
    public Host agentHost(long bizId, long cloudId, String ip, String hostName, String osType, String cpuArch) {
        return write(h -> {
            Optional<Long> existing = repo.hostIdByAddress(h, cloudId, ip);
            if (existing.isPresent()) {
                return repo.host(h, existing.get()).orElseThrow();
            }
            long id = repo.nextId(h, "host", "bk_host_id");
            Host host = new Host(id, bizId, ip, cloudId, hostName, osType, cpuArch, List.of(), Map.of());
            check(InventoryRules.host(host, "", false));
            Host created = placeHost(h, AGENT_REGISTRATION, host, null, "");
            repo.insertHost(h, created);
            changed(h, "host", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    /** Rewrites a host's fields; placement changes go through {@link #moveHost}. */
    public Host updateHost(Principal p, long id, Host host) {
        requireSameId("bk_host_id", id, host.bkHostId());
        return write(h -> {
            Host before = repo.host(h, id).orElseThrow(() -> DomainException.notFound("host", id));
            p.requireBiz(before.bkBizId());
            if ((host.bkBizId() != null && !host.bkBizId().equals(before.bkBizId()))
                    || (!host.bkModuleIds().isEmpty() && !sorted(host.bkModuleIds()).equals(before.bkModuleIds()))) {
                throw DomainException.invalid("bk_module_ids", "a host changes business or modules through POST /api/v1/hosts/"
                        + id + "/move");
            }
            Host after = new Host(id, before.bkBizId(), host.bkHostInnerip(),
                    host.bkCloudId() == null ? 0L : host.bkCloudId(), host.bkHostName(), host.osType(), host.cpuArch(),
                    before.bkModuleIds(), host.attributes());
            check(InventoryRules.host(after, "", true));
            if (after.equals(before)) {
                return before;
            }
            requireFreeAddress(h, after, "bk_host_innerip");
            repo.updateHost(h, after);
            changed(h, "host", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    /** Moves a host to modules (all of one business), or with only a business to that business's idle module. */
    public Host moveHost(Principal p, long id, HostMove move) {
        List<Long> moduleIds = move.bkModuleIds() == null ? List.of() : move.bkModuleIds();
        if (moduleIds.isEmpty() && move.bkBizId() == null) {
            throw DomainException.invalid(List.of(new FieldError("bk_module_ids", "give target modules, or a bk_biz_id to move to its idle module")));
        }
        return write(h -> {
            Host before = repo.host(h, id).orElseThrow(() -> DomainException.notFound("host", id));
            p.requireBiz(before.bkBizId());
            Long targetBiz = move.bkBizId();
            if (targetBiz == null) {
                TopoModule first = requireModule(h, moduleIds.getFirst(), "bk_module_ids[0]");
                targetBiz = first.bkBizId();
            }
            Host target = new Host(id, targetBiz, before.bkHostInnerip(), before.bkCloudId(), before.bkHostName(),
                    before.osType(), before.cpuArch(), moduleIds, before.attributes());
            Host after = placeHost(h, p, target, null, "");
            if (after.equals(before)) {
                return before;
            }
            requireServicesKept(h, after, "bk_module_ids");
            repo.updateHost(h, after);
            changed(h, "host", "moved", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteHost(Principal p, long id) {
        write(h -> {
            Host before = repo.host(h, id).orElseThrow(() -> DomainException.notFound("host", id));
            p.requireBiz(before.bkBizId());
            List<ServiceInstance> services = repo.serviceInstancesOfHost(h, id);
            if (!services.isEmpty()) {
                throw DomainException.conflict("not_empty", "host " + id + " still has service instance(s) "
                        + services.stream().map(s -> s.name() + " (#" + s.id() + ")").toList() + "; delete them first");
            }
            repo.deleteHost(h, id);
            changed(h, "host", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- service instances

    public ServiceInstance createServiceInstance(Principal p, ServiceInstance s) {
        check(InventoryRules.serviceInstance(s, "", false));
        return write(h -> {
            long id = s.id() != null ? s.id() : repo.nextId(h, "service_instance", "id");
            if (repo.serviceInstance(h, id).isPresent()) {
                throw DomainException.conflict("already_exists", "service instance " + id + " already exists");
            }
            ServiceInstance created = placeService(h, p, withId(s, id), "");
            repo.insertServiceInstance(h, created);
            changed(h, "service_instance", "created", id, created.bkBizId(), null, created);
            return created;
        });
    }

    public ServiceInstance updateServiceInstance(Principal p, long id, ServiceInstance s) {
        requireSameId("id", id, s.id());
        check(InventoryRules.serviceInstance(withId(s, id), "", true));
        return write(h -> {
            ServiceInstance before = repo.serviceInstance(h, id)
                    .orElseThrow(() -> DomainException.notFound("service instance", id));
            p.requireBiz(before.bkBizId());
            ServiceInstance after = placeService(h, p, withId(s, id), "");
            if (after.equals(before)) {
                return before;
            }
            repo.updateServiceInstance(h, after);
            changed(h, "service_instance", "updated", id, after.bkBizId(), before, after);
            return after;
        });
    }

    public void deleteServiceInstance(Principal p, long id) {
        write(h -> {
            ServiceInstance before = repo.serviceInstance(h, id)
                    .orElseThrow(() -> DomainException.notFound("service instance", id));
            p.requireBiz(before.bkBizId());
            repo.deleteServiceInstance(h, id);
            changed(h, "service_instance", "deleted", id, before.bkBizId(), before, null);
            return null;
        });
    }

    // ---------------------------------------------------------------- bulk import

    /**
     * Imports a whole document in one transaction. Records are created or updated by id (nothing absent from
     * the document is deleted); records equal to what is stored are left alone and emit no event, so importing
     * the same document twice changes nothing. Any bad record refuses the whole document, naming record and field.
     */
    public ImportResult importDocument(Principal p, InventoryDocument doc) {
        return importDocument(p, doc, ImportProgress.NONE);
    }

    /** As {@link #importDocument(Principal, InventoryDocument)}, telling {@code progress} every thousand records written. */
    public ImportResult importDocument(Principal p, InventoryDocument doc, ImportProgress progress) {
        List<FieldError> errors = new ArrayList<>();
        validateAll(errors, doc.businesses(), "businesses", (b, at) -> InventoryRules.business(b, at, true), Business::bkBizId);
        validateAll(errors, doc.sets(), "sets", (s, at) -> InventoryRules.set(s, at, true), TopoSet::bkSetId);
        validateAll(errors, doc.modules(), "modules", (m, at) -> InventoryRules.module(m, at, true), TopoModule::bkModuleId);
        validateAll(errors, doc.hosts(), "hosts", (x, at) -> InventoryRules.host(x, at, true), Host::bkHostId);
        validateAll(errors, doc.serviceInstances(), "service_instances",
                (s, at) -> InventoryRules.serviceInstance(s, at, true), ServiceInstance::id);
        Map<String, Integer> addresses = new HashMap<>();
        for (int i = 0; i < doc.hosts().size(); i++) {
            Host host = doc.hosts().get(i);
            String key = (host.bkCloudId() == null ? 0 : host.bkCloudId()) + "/" + host.bkHostInnerip();
            Integer first = addresses.putIfAbsent(key, i);
            if (first != null && host.bkHostInnerip() != null) {
                errors.add(new FieldError("hosts[" + i + "].bk_host_innerip", host.bkHostInnerip()
                        + " in cloud " + (host.bkCloudId() == null ? 0 : host.bkCloudId()) + " is also hosts[" + first + "]"));
            }
        }
        check(errors);
        int[] counts = new int[Outcome.values().length];
        int total = doc.businesses().size() + doc.sets().size() + doc.modules().size() + doc.hosts().size()
                + doc.serviceInstances().size();
        int[] written = {0};
        Runnable step = () -> {
            if (++written[0] % ImportProgress.EVERY == 0 || written[0] == total) {
                progress.written(written[0], total);
            }
        };
        write(h -> {
            for (int i = 0; i < doc.businesses().size(); i++) {
                counts[upsertBusiness(h, p, doc.businesses().get(i), "businesses[" + i + "].").ordinal()]++;
                step.run();
            }
            for (int i = 0; i < doc.sets().size(); i++) {
                counts[upsertSet(h, p, doc.sets().get(i), "sets[" + i + "].").ordinal()]++;
                step.run();
            }
            for (int i = 0; i < doc.modules().size(); i++) {
                counts[upsertModule(h, p, doc.modules().get(i), "modules[" + i + "].").ordinal()]++;
                step.run();
            }
            for (Business b : doc.businesses()) {
                counts[Outcome.CREATED.ordinal()] += ensureIdleModule(h, b.bkBizId());
            }
            for (int i = 0; i < doc.hosts().size(); i++) {
                counts[upsertHost(h, p, doc.hosts().get(i), "hosts[" + i + "].").ordinal()]++;
                step.run();
            }
            for (int i = 0; i < doc.serviceInstances().size(); i++) {
                counts[upsertService(h, p, doc.serviceInstances().get(i), "service_instances[" + i + "].").ordinal()]++;
                step.run();
            }
            return null;
        });
        return new ImportResult(counts[Outcome.CREATED.ordinal()], counts[Outcome.UPDATED.ordinal()],
                counts[Outcome.UNCHANGED.ordinal()]);
    }

    private interface RecordRules<T> {
        List<FieldError> check(T record, String path);
    }

    private static <T> void validateAll(List<FieldError> errors, List<T> records, String name, RecordRules<T> rules,
                                        Function<T, Long> id) {
        Map<Long, Integer> seen = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            T record = records.get(i);
            String at = name + "[" + i + "].";
            if (record == null) {
                errors.add(new FieldError(name + "[" + i + "]", "is empty"));
                continue;
            }
            errors.addAll(rules.check(record, at));
            Long key = id.apply(record);
            if (key != null) {
                Integer first = seen.putIfAbsent(key, i);
                if (first != null) {
                    errors.add(new FieldError(name + "[" + i + "]", "repeats the id " + key + " of " + name + "[" + first + "]"));
                }
            }
        }
    }

    private Outcome upsertBusiness(Handle h, Principal p, Business b, String at) {
        Business wanted = new Business(b.bkBizId(), b.bkBizName().strip(), b.attributes());
        Optional<Business> existing = repo.business(h, b.bkBizId());
        if (existing.isEmpty()) {
            p.requireAllBusinesses("create business " + b.bkBizId());
        } else {
            p.requireBiz(b.bkBizId());
            if (existing.get().equals(wanted)) {
                return Outcome.UNCHANGED;
            }
        }
        requireFreeBusinessName(h, wanted, at + "bk_biz_name");
        if (existing.isEmpty()) {
            repo.insertBusiness(h, wanted);
        } else {
            repo.updateBusiness(h, wanted);
        }
        changed(h, "business", existing.isEmpty() ? "created" : "updated", wanted.bkBizId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertSet(Handle h, Principal p, TopoSet s, String at) {
        requireBusiness(h, s.bkBizId(), at + "bk_biz_id");
        p.requireBiz(s.bkBizId());
        TopoSet wanted = new TopoSet(s.bkSetId(), s.bkBizId(), s.bkSetName().strip());
        Optional<TopoSet> existing = repo.set(h, s.bkSetId());
        if (existing.isPresent()) {
            if (!existing.get().bkBizId().equals(wanted.bkBizId())) {
                throw DomainException.invalid(at + "bk_biz_id", "set " + s.bkSetId() + " belongs to business "
                        + existing.get().bkBizId() + "; a set cannot move to another business");
            }
            if (existing.get().equals(wanted)) {
                return Outcome.UNCHANGED;
            }
        }
        requireFreeSetName(h, wanted, at + "bk_set_name");
        if (existing.isEmpty()) {
            repo.insertSet(h, wanted);
        } else {
            repo.updateSet(h, wanted);
        }
        changed(h, "set", existing.isEmpty() ? "created" : "updated", wanted.bkSetId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertModule(Handle h, Principal p, TopoModule m, String at) {
        return saveModule(h, p, m, repo.module(h, m.bkModuleId()), at);
    }

    /**
     * The one write path of modules (create, update, import): the set must be the module's business's, a module
     * never moves to another set, whether it is the idle module never changes and a business has one idle module,
     * names are unique in the set; an unchanged module is left alone and emits no event.
     */
    private Outcome saveModule(Handle h, Principal p, TopoModule m, Optional<TopoModule> existing, String at) {
        TopoSet set = requireSet(h, m.bkSetId(), at + "bk_set_id");
        p.requireBiz(set.bkBizId());
        if (m.bkBizId() != null && !m.bkBizId().equals(set.bkBizId())) {
            throw DomainException.invalid(at + "bk_biz_id", "set " + set.bkSetId() + " belongs to business " + set.bkBizId());
        }
        TopoModule wanted = new TopoModule(m.bkModuleId(), set.bkSetId(), set.bkBizId(), m.bkModuleName().strip(), m.idle());
        if (existing.isPresent()) {
            if (!existing.get().bkSetId().equals(wanted.bkSetId())) {
                throw DomainException.invalid(at + "bk_set_id", "module " + m.bkModuleId() + " belongs to set "
                        + existing.get().bkSetId() + "; a module cannot move to another set");
            }
            if (existing.get().idle() != wanted.idle()) {
                throw DomainException.invalid(at + "idle", "whether module " + m.bkModuleId() + " is the idle module cannot change");
            }
            if (existing.get().equals(wanted)) {
                return Outcome.UNCHANGED;
            }
        } else if (wanted.idle()) {
            Optional<TopoModule> idle = repo.idleModule(h, set.bkBizId());
            if (idle.isPresent()) {
                throw DomainException.invalid(at + "idle", "business " + set.bkBizId() + " already has idle module "
                        + idle.get().bkModuleId() + " (made with the business); a new module cannot be idle");
            }
        }
        requireFreeModuleName(h, wanted, at + "bk_module_name");
        if (existing.isEmpty()) {
            repo.insertModule(h, wanted);
        } else {
            repo.updateModule(h, wanted);
        }
        changed(h, "module", existing.isEmpty() ? "created" : "updated", wanted.bkModuleId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertHost(Handle h, Principal p, Host host, String at) {
        Optional<Host> existing = repo.host(h, host.bkHostId());
        existing.ifPresent(e -> p.requireBiz(e.bkBizId()));
        Host wanted = placeHost(h, p, host, existing.orElse(null), at);
        if (existing.isPresent() && existing.get().equals(wanted)) {
            return Outcome.UNCHANGED;
        }
        requireFreeAddress(h, wanted, at + "bk_host_innerip");
        if (existing.isEmpty()) {
            repo.insertHost(h, wanted);
        } else {
            requireServicesKept(h, wanted, at + "bk_module_ids");
            repo.updateHost(h, wanted);
        }
        changed(h, "host", existing.isEmpty() ? "created" : "updated", wanted.bkHostId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertService(Handle h, Principal p, ServiceInstance s, String at) {
        Optional<ServiceInstance> existing = repo.serviceInstance(h, s.id());
        existing.ifPresent(e -> p.requireBiz(e.bkBizId()));
        ServiceInstance wanted = placeService(h, p, s, at);
        if (existing.isPresent() && existing.get().equals(wanted)) {
            return Outcome.UNCHANGED;
        }
        if (existing.isEmpty()) {
            repo.insertServiceInstance(h, wanted);
        } else {
            repo.updateServiceInstance(h, wanted);
        }
        changed(h, "service_instance", existing.isEmpty() ? "created" : "updated", wanted.id(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    // ---------------------------------------------------------------- shared checks

    /**
     * The host as it will be stored: cloud id defaulted, modules checked to exist in the host's business and sorted.
     * No modules means: where it already is (same business), else the business's idle module.
     */
    private Host placeHost(Handle h, Principal p, Host host, Host existing, String at) {
        long bizId = host.bkBizId();
        requireBusiness(h, bizId, at + "bk_biz_id");
        p.requireBiz(bizId);
        List<Long> modules;
        if (!host.bkModuleIds().isEmpty()) {
            for (int i = 0; i < host.bkModuleIds().size(); i++) {
                TopoModule m = requireModule(h, host.bkModuleIds().get(i), at + "bk_module_ids[" + i + "]");
                if (m.bkBizId() != bizId) {
                    throw DomainException.invalid(at + "bk_module_ids[" + i + "]", "module " + m.bkModuleId()
                            + " belongs to business " + m.bkBizId() + ", not " + bizId);
                }
            }
            modules = sorted(host.bkModuleIds());
        } else if (existing != null && existing.bkBizId() == bizId) {
            modules = existing.bkModuleIds();
        } else {
            modules = List.of(repo.idleModule(h, bizId).orElseThrow(() -> DomainException.invalid(at + "bk_module_ids",
                    "business " + bizId + " has no idle module; name the host's modules")).bkModuleId());
        }
        return new Host(host.bkHostId(), bizId, host.bkHostInnerip(), host.bkCloudId() == null ? 0L : host.bkCloudId(),
                host.bkHostName(), host.osType(), host.cpuArch(), modules, host.attributes());
    }

    private ServiceInstance placeService(Handle h, Principal p, ServiceInstance s, String at) {
        TopoModule module = requireModule(h, s.bkModuleId(), at + "bk_module_id");
        p.requireBiz(module.bkBizId());
        if (s.bkBizId() != null && !s.bkBizId().equals(module.bkBizId())) { // the module's business, never another's
            p.requireBiz(s.bkBizId());
            throw DomainException.invalid(at + "bk_biz_id", "is " + s.bkBizId() + " but module " + module.bkModuleId()
                    + " is in business " + module.bkBizId());
        }
        // A host of a business the token does not cover is answered as one that does not exist.
        Host host = repo.host(h, s.bkHostId()).filter(found -> p.covers(found.bkBizId())).orElseThrow(() -> DomainException.invalid(
                at + "bk_host_id", "host " + s.bkHostId() + " does not exist"));
        if (!host.bkModuleIds().contains(module.bkModuleId())) {
            throw DomainException.invalid(at + "bk_host_id", "host " + host.bkHostId() + " is not in module "
                    + module.bkModuleId() + "; move the host there first");
        }
        return new ServiceInstance(s.id(), s.name().strip(), module.bkBizId(), module.bkModuleId(), host.bkHostId(),
                s.labels(), s.processes());
    }

    private void requireServicesKept(Handle h, Host after, String field) {
        List<String> orphaned = repo.serviceInstancesOfHost(h, after.bkHostId()).stream()
                .filter(s -> !after.bkModuleIds().contains(s.bkModuleId()))
                .map(s -> s.name() + " (#" + s.id() + ") in module " + s.bkModuleId()).toList();
        if (!orphaned.isEmpty()) {
            throw DomainException.conflict("has_service_instances", "host " + after.bkHostId()
                    + " would leave modules that hold its service instances " + orphaned
                    + "; delete or move them first (" + field + ")");
        }
    }

    private int ensureIdleModule(Handle h, long bizId) {
        if (repo.idleModule(h, bizId).isPresent()) {
            return 0;
        }
        long setId = repo.nextId(h, "topo_set", "bk_set_id");
        TopoSet set = new TopoSet(setId, bizId, IDLE_SET_NAME);
        repo.insertSet(h, set);
        changed(h, "set", "created", setId, bizId, null, set);
        long moduleId = repo.nextId(h, "topo_module", "bk_module_id");
        TopoModule module = new TopoModule(moduleId, setId, bizId, IDLE_MODULE_NAME, true);
        repo.insertModule(h, module);
        changed(h, "module", "created", moduleId, bizId, null, module);
        return 2;
    }

    private void requireBusiness(Handle h, long bizId, String field) {
        if (repo.business(h, bizId).isEmpty()) {
            throw DomainException.invalid(field, "business " + bizId + " does not exist");
        }
    }

    private TopoSet requireSet(Handle h, long setId, String field) {
        return repo.set(h, setId).orElseThrow(() -> DomainException.invalid(field, "set " + setId + " does not exist"));
    }

    private TopoModule requireModule(Handle h, long moduleId, String field) {
        return repo.module(h, moduleId).orElseThrow(() -> DomainException.invalid(field, "module " + moduleId + " does not exist"));
    }

    private void requireFreeBusinessName(Handle h, Business b, String field) {
        repo.businessByName(h, b.bkBizName()).filter(other -> !other.bkBizId().equals(b.bkBizId()))
                .ifPresent(other -> {
                    throw conflictOrInvalid(field, "name '" + b.bkBizName() + "' is already business " + other.bkBizId());
                });
    }

    private void requireFreeSetName(Handle h, TopoSet s, String field) {
        repo.sets(h, s.bkBizId(), null).stream()
                .filter(o -> o.bkSetName().equals(s.bkSetName()) && !o.bkSetId().equals(s.bkSetId())).findFirst()
                .ifPresent(o -> {
                    throw conflictOrInvalid(field, "business " + s.bkBizId() + " already has set '" + s.bkSetName()
                            + "' (" + o.bkSetId() + ")");
                });
    }

    private void requireFreeModuleName(Handle h, TopoModule m, String field) {
        repo.modules(h, null, m.bkSetId(), null).stream()
                .filter(o -> o.bkModuleName().equals(m.bkModuleName()) && !o.bkModuleId().equals(m.bkModuleId()))
                .findFirst().ifPresent(o -> {
                    throw conflictOrInvalid(field, "set " + m.bkSetId() + " already has module '" + m.bkModuleName()
                            + "' (" + o.bkModuleId() + ")");
                });
    }

    private void requireFreeAddress(Handle h, Host host, String field) {
        repo.hostIdByAddress(h, host.bkCloudId(), host.bkHostInnerip())
                .filter(other -> !other.equals(host.bkHostId()))
                .ifPresent(other -> {
                    throw conflictOrInvalid(field, host.bkHostInnerip() + " in cloud " + host.bkCloudId()
                            + " is already host " + other);
                });
    }

    /** A clash inside an import names the record (422); a clash on a single-object request is a conflict (409). */
    private static DomainException conflictOrInvalid(String field, String message) {
        if (field.contains("[")) {
            return DomainException.invalid(field, message);
        }
        return DomainException.conflict("already_exists", message);
    }

    private static void requireSameId(String field, long pathId, Long bodyId) {
        if (bodyId != null && bodyId != pathId) {
            throw DomainException.invalid(field, "is " + bodyId + " but the path names " + pathId);
        }
    }

    private static void check(List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
    }

    private static List<Long> sorted(List<Long> ids) {
        return ids.stream().sorted().toList();
    }

    private static Host withId(Host h, long id) {
        return new Host(id, h.bkBizId(), h.bkHostInnerip(), h.bkCloudId(), h.bkHostName(), h.osType(), h.cpuArch(),
                h.bkModuleIds(), h.attributes());
    }

    private static ServiceInstance withId(ServiceInstance s, long id) {
        return new ServiceInstance(id, s.name(), s.bkBizId(), s.bkModuleId(), s.bkHostId(), s.labels(), s.processes());
    }

    private void changed(Handle h, String kind, String action, long id, long bizId, Object before, Object after) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("kind", kind);
        data.put("action", action);
        data.put("id", id);
        data.put("bk_biz_id", bizId);
        data.put("before", before == null ? null : Json.json().convertValue(before, Map.class));
        data.put("after", after == null ? null : Json.json().convertValue(after, Map.class));
        events.append(h, "drover/inventory/" + kind + "/" + action, data);
    }

    /** Runs one transaction, maps a lost race on a unique key to 409, then publishes the events it wrote. */
    private <T> T write(HandleCallback<T, RuntimeException> work) {
        T result;
        try {
            result = jdbi.inTransaction(work);
        } catch (DomainException e) {
            throw e;
        } catch (RuntimeException e) {
            String constraint = Sql.violatedConstraint(e);
            if (constraint.isEmpty()) {
                throw e;
            }
            throw DomainException.conflict("conflict", "a concurrent change took the same id or name ("
                    + constraint + "); retry the request");
        }
        events.publishPending();
        return result;
    }
}

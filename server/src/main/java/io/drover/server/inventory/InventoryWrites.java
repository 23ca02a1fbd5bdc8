package io.drover.server.inventory;

import io.drover.model.Json;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventStore;
import io.drover.server.store.Sql;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The one write path of the inventory that single-object changes and the bulk import share: where a host or a service
 * instance is placed, the checks every write makes (references exist, names and addresses free, service instances
 * kept), the change events, and the transaction that publishes them after commit.
 */
final class InventoryWrites {
    /** What a write did to one record. */
    enum Outcome { CREATED, UPDATED, UNCHANGED }

    private final Jdbi jdbi;
    private final InventoryStore repo;
    private final EventStore events;

    InventoryWrites(Jdbi jdbi, InventoryStore repo, EventStore events) {
        this.jdbi = jdbi;
        this.repo = repo;
        this.events = events;
    }

    /**
     * The one write path of modules (create, update, import): the set must be the module's business's, a module
     * never moves to another set, whether it is the idle module never changes and a business has one idle module,
     * names are unique in the set; an unchanged module is left alone and emits no event.
     */
    Outcome saveModule(Handle h, Principal p, TopoModule m, Optional<TopoModule> existing, String at) {
        TopoSet set = requireSet(h, p, m.bkSetId(), at + "bk_set_id");
        if (m.bkBizId() != null && !m.bkBizId().equals(set.bkBizId())) {
            throw DomainException.invalid(at + "bk_biz_id", "set " + set.bkSetId() + " belongs to business " + set.bkBizId());
        }
        TopoModule wanted = new TopoModule(m.bkModuleId(), set.bkSetId(), set.bkBizId(), m.bkModuleName().strip(), m.idle());
        if (existing.isPresent()) {
            requireNotOthers(p, existing.get().bkBizId(), "module", m.bkModuleId(), at + "bk_module_id");
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


    /**
     * The host as it will be stored: cloud id defaulted, modules checked to exist in the host's business and sorted.
     * No modules means: where it already is (same business), else the business's idle module.
     */
    Host placeHost(Handle h, Principal p, Host host, Host existing, String at) {
        long bizId = host.bkBizId();
        p.requireBiz(bizId); // first: a scoped token learns nothing of a business it does not cover, not even that it exists
        requireBusiness(h, bizId, at + "bk_biz_id");
        List<Long> modules;
        if (!host.bkModuleIds().isEmpty()) {
            for (int i = 0; i < host.bkModuleIds().size(); i++) {
                TopoModule m = requireModule(h, p, host.bkModuleIds().get(i), at + "bk_module_ids[" + i + "]");
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

    ServiceInstance placeService(Handle h, Principal p, ServiceInstance s, String at) {
        TopoModule module = requireModule(h, p, s.bkModuleId(), at + "bk_module_id");
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

    void requireServicesKept(Handle h, Host after, String field) {
        List<String> orphaned = repo.serviceInstancesOfHost(h, after.bkHostId()).stream()
                .filter(s -> !after.bkModuleIds().contains(s.bkModuleId()))
                .map(s -> s.name() + " (#" + s.id() + ") in module " + s.bkModuleId()).toList();
        if (!orphaned.isEmpty()) {
            throw DomainException.conflict("has_service_instances", "host " + after.bkHostId()
                    + " would leave modules that hold its service instances " + orphaned
                    + "; delete or move them first (" + field + ")");
        }
    }

    int ensureIdleModule(Handle h, long bizId) {
        if (repo.idleModule(h, bizId).isPresent()) {
            return 0;
        }
        long setId = repo.nextId(h, "topo_set", "bk_set_id");
        TopoSet set = new TopoSet(setId, bizId, InventoryService.IDLE_SET_NAME);
        repo.insertSet(h, set);
        changed(h, "set", "created", setId, bizId, null, set);
        long moduleId = repo.nextId(h, "topo_module", "bk_module_id");
        TopoModule module = new TopoModule(moduleId, setId, bizId, InventoryService.IDLE_MODULE_NAME, true);
        repo.insertModule(h, module);
        changed(h, "module", "created", moduleId, bizId, null, module);
        return 2;
    }

    void requireBusiness(Handle h, long bizId, String field) {
        if (repo.business(h, bizId).isEmpty()) {
            throw DomainException.invalid(field, "business " + bizId + " does not exist");
        }
    }

    /** A set named in a body; one of a business {@code p} does not cover is answered as one that does not exist. */
    TopoSet requireSet(Handle h, Principal p, long setId, String field) {
        return repo.set(h, setId).filter(set -> p.covers(set.bkBizId()))
                .orElseThrow(() -> DomainException.invalid(field, "set " + setId + " does not exist"));
    }

    /** A module named in a body; one of a business {@code p} does not cover is answered as one that does not exist. */
    TopoModule requireModule(Handle h, Principal p, long moduleId, String field) {
        return repo.module(h, moduleId).filter(module -> p.covers(module.bkBizId()))
                .orElseThrow(() -> DomainException.invalid(field, "module " + moduleId + " does not exist"));
    }

    /**
     * An object an import would update, found by its id in another business than {@code p} covers: the id is taken,
     * said without naming that business.
     */
    static void requireNotOthers(Principal p, long bizId, String kind, long id, String field) {
        if (!p.covers(bizId)) {
            throw conflictOrInvalid(field, kind + " " + id + " already exists");
        }
    }

    /** Business names are unique; one {@code p} does not cover is not named. */
    void requireFreeBusinessName(Handle h, Principal p, Business b, String field) {
        repo.businessByName(h, b.bkBizName()).filter(other -> !other.bkBizId().equals(b.bkBizId()))
                .ifPresent(other -> {
                    throw conflictOrInvalid(field, "name '" + b.bkBizName() + "' is already "
                            + (p.covers(other.bkBizId()) ? "business " + other.bkBizId() : "another business's"));
                });
    }

    void requireFreeSetName(Handle h, TopoSet s, String field) {
        repo.sets(h, s.bkBizId(), null).stream()
                .filter(o -> o.bkSetName().equals(s.bkSetName()) && !o.bkSetId().equals(s.bkSetId())).findFirst()
                .ifPresent(o -> {
                    throw conflictOrInvalid(field, "business " + s.bkBizId() + " already has set '" + s.bkSetName()
                            + "' (" + o.bkSetId() + ")");
                });
    }

    void requireFreeModuleName(Handle h, TopoModule m, String field) {
        repo.modules(h, null, m.bkSetId(), null).stream()
                .filter(o -> o.bkModuleName().equals(m.bkModuleName()) && !o.bkModuleId().equals(m.bkModuleId()))
                .findFirst().ifPresent(o -> {
                    throw conflictOrInvalid(field, "set " + m.bkSetId() + " already has module '" + m.bkModuleName()
                            + "' (" + o.bkModuleId() + ")");
                });
    }

    /** An address is one host's in its cloud; a host {@code p} cannot see is not named. */
    void requireFreeAddress(Handle h, Principal p, Host host, String field) {
        repo.hostIdByAddress(h, host.bkCloudId(), host.bkHostInnerip())
                .filter(other -> !other.equals(host.bkHostId()))
                .ifPresent(other -> {
                    boolean visible = p.allBusinesses() || repo.host(h, other).filter(o -> p.covers(o.bkBizId())).isPresent();
                    throw conflictOrInvalid(field, host.bkHostInnerip() + " in cloud " + host.bkCloudId() + " is already "
                            + (visible ? "host " + other : "another host's, in a business this token does not cover"));
                });
    }

    /** A clash inside an import names the record (422); a clash on a single-object request is a conflict (409). */
    static DomainException conflictOrInvalid(String field, String message) {
        if (field.contains("[")) {
            return DomainException.invalid(field, message);
        }
        return DomainException.conflict("already_exists", message);
    }

    static void check(List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
    }

    static List<Long> sorted(List<Long> ids) {
        return ids.stream().sorted().toList();
    }

    void changed(Handle h, String kind, String action, long id, long bizId, Object before, Object after) {
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
    <T> T write(HandleCallback<T, RuntimeException> work) {
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

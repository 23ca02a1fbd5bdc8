package io.drover.server.inventory;

import io.drover.core.inventory.InventoryRules;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.InventoryDocument;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryWrites.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The bulk import of an inventory document: every record checked first, then written in one transaction through the
 * write path single-object changes take ({@link InventoryWrites}).
 */
public final class InventoryImport {
    private final InventoryStore repo;
    private final InventoryWrites writes;

    public InventoryImport(Jdbi jdbi, InventoryStore repo, EventStore events) {
        this.repo = repo;
        this.writes = new InventoryWrites(jdbi, repo, events);
    }

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
        InventoryWrites.check(errors);
        int[] counts = new int[Outcome.values().length];
        int total = doc.businesses().size() + doc.sets().size() + doc.modules().size() + doc.hosts().size()
                + doc.serviceInstances().size();
        int[] written = {0};
        Runnable step = () -> {
            if (++written[0] % ImportProgress.EVERY == 0 || written[0] == total) {
                progress.written(written[0], total);
            }
        };
        writes.write(h -> {
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
                counts[Outcome.CREATED.ordinal()] += writes.ensureIdleModule(h, b.bkBizId());
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
        p.requireBiz(b.bkBizId()); // the same answer for a business that exists and one that does not
        Optional<Business> existing = repo.business(h, b.bkBizId());
        if (existing.isEmpty()) {
            p.requireAllBusinesses("create business " + b.bkBizId());
        } else {
            if (existing.get().equals(wanted)) {
                return Outcome.UNCHANGED;
            }
        }
        writes.requireFreeBusinessName(h, p, wanted, at + "bk_biz_name");
        if (existing.isEmpty()) {
            repo.insertBusiness(h, wanted);
        } else {
            repo.updateBusiness(h, wanted);
        }
        writes.changed(h, "business", existing.isEmpty() ? "created" : "updated", wanted.bkBizId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertSet(Handle h, Principal p, TopoSet s, String at) {
        p.requireBiz(s.bkBizId()); // first: nothing of a business the token does not cover, not even that it exists
        writes.requireBusiness(h, s.bkBizId(), at + "bk_biz_id");
        TopoSet wanted = new TopoSet(s.bkSetId(), s.bkBizId(), s.bkSetName().strip());
        Optional<TopoSet> existing = repo.set(h, s.bkSetId());
        if (existing.isPresent()) {
            InventoryWrites.requireNotOthers(p, existing.get().bkBizId(), "set", s.bkSetId(), at + "bk_set_id");
            if (!existing.get().bkBizId().equals(wanted.bkBizId())) {
                throw DomainException.invalid(at + "bk_biz_id", "set " + s.bkSetId() + " belongs to business "
                        + existing.get().bkBizId() + "; a set cannot move to another business");
            }
            if (existing.get().equals(wanted)) {
                return Outcome.UNCHANGED;
            }
        }
        writes.requireFreeSetName(h, wanted, at + "bk_set_name");
        if (existing.isEmpty()) {
            repo.insertSet(h, wanted);
        } else {
            repo.updateSet(h, wanted);
        }
        writes.changed(h, "set", existing.isEmpty() ? "created" : "updated", wanted.bkSetId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertModule(Handle h, Principal p, TopoModule m, String at) {
        return writes.saveModule(h, p, m, repo.module(h, m.bkModuleId()), at);
    }

    private Outcome upsertHost(Handle h, Principal p, Host host, String at) {
        Optional<Host> existing = repo.host(h, host.bkHostId());
        existing.ifPresent(e -> InventoryWrites.requireNotOthers(p, e.bkBizId(), "host", e.bkHostId(), at + "bk_host_id"));
        Host wanted = writes.placeHost(h, p, host, existing.orElse(null), at);
        if (existing.isPresent() && existing.get().equals(wanted)) {
            return Outcome.UNCHANGED;
        }
        writes.requireFreeAddress(h, p, wanted, at + "bk_host_innerip");
        if (existing.isEmpty()) {
            repo.insertHost(h, wanted);
        } else {
            writes.requireServicesKept(h, wanted, at + "bk_module_ids");
            repo.updateHost(h, wanted);
        }
        writes.changed(h, "host", existing.isEmpty() ? "created" : "updated", wanted.bkHostId(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }

    private Outcome upsertService(Handle h, Principal p, ServiceInstance s, String at) {
        Optional<ServiceInstance> existing = repo.serviceInstance(h, s.id());
        existing.ifPresent(e -> InventoryWrites.requireNotOthers(p, e.bkBizId(), "service instance", e.id(), at + "id"));
        ServiceInstance wanted = writes.placeService(h, p, s, at);
        if (existing.isPresent() && existing.get().equals(wanted)) {
            return Outcome.UNCHANGED;
        }
        if (existing.isEmpty()) {
            repo.insertServiceInstance(h, wanted);
        } else {
            repo.updateServiceInstance(h, wanted);
        }
        writes.changed(h, "service_instance", existing.isEmpty() ? "created" : "updated", wanted.id(), wanted.bkBizId(),
                existing.orElse(null), wanted);
        return existing.isEmpty() ? Outcome.CREATED : Outcome.UPDATED;
    }
}

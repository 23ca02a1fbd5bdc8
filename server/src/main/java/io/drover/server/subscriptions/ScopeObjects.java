package io.drover.server.subscriptions;

import io.drover.core.subscriptions.ScopeReferences;
import io.drover.core.subscriptions.ScopeReferences.Kind;
import io.drover.core.subscriptions.ScopeReferences.Reference;
import io.drover.core.subscriptions.ScopeReferences.Refusal;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.inventory.InventoryStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Checks every field of a subscription body that names a business or an object of one against the caller's token
 * and the subscription's business ({@link ScopeReferences}), with the businesses the objects are in now: 403 naming
 * each field the token may not name, else 422 naming each field outside {@code scope.bk_biz_id}.
 */
public final class ScopeObjects {
    private final Jdbi jdbi;
    private final InventoryStore repository;

    public ScopeObjects(Jdbi jdbi, InventoryStore repository) {
        this.jdbi = jdbi;
        this.repository = repository;
    }

    public void check(Principal p, SubscriptionSpec spec) {
        List<Reference> references = ScopeReferences.of(spec);
        Map<Reference, Long> businesses = jdbi.withHandle(h -> businesses(h, references));
        List<Refusal> refused = ScopeReferences.check(spec, businesses::get, p::covers);
        List<FieldError> forbidden = refused.stream().filter(Refusal::forbidden)
                .map(r -> new FieldError(r.field(), r.message())).toList();
        if (!forbidden.isEmpty()) {
            throw DomainException.forbidden("token '" + p.name() + "' is limited to businesses " + p.bizIds().stream().sorted().toList()
                    + ": " + forbidden.getFirst().field() + " " + forbidden.getFirst().message()
                    + (forbidden.size() > 1 ? " (and " + (forbidden.size() - 1) + " more field(s))" : ""), forbidden);
        }
        if (!refused.isEmpty()) {
            throw DomainException.invalid(refused.stream().map(r -> new FieldError(r.field(), r.message())).toList());
        }
    }

    /** The business each referenced object is in now; an object that does not exist is left out. */
    private Map<Reference, Long> businesses(Handle h, List<Reference> references) {
        Map<Reference, Long> out = new HashMap<>();
        Set<Long> hostIds = references.stream().filter(r -> r.kind() == Kind.HOST).map(Reference::id).collect(Collectors.toSet());
        Map<Long, Long> hosts = hostIds.isEmpty() ? Map.of() : repository.hostBusinesses(h, hostIds);
        for (Reference r : references) {
            Long biz = switch (r.kind()) {
                case BUSINESS -> r.id();
                case HOST -> hosts.get(r.id());
                case HOST_ADDRESS -> repository.hostIdByAddress(h, r.cloudId(), r.ip())
                        .flatMap(id -> repository.host(h, id)).map(io.drover.model.inventory.Host::bkBizId).orElse(null);
                case SET -> repository.set(h, r.id()).map(TopoSet::bkBizId).orElse(null);
                case MODULE -> repository.module(h, r.id()).map(TopoModule::bkBizId).orElse(null);
                case SERVICE_INSTANCE -> repository.serviceInstance(h, r.id()).map(ServiceInstance::bkBizId).orElse(null);
            };
            if (biz != null) {
                out.put(r, biz);
            }
        }
        return out;
    }
}

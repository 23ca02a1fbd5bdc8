package io.drover.core.subscriptions;

import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionSpec.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every field of a subscription body that names a business or an object of one (a set, a module, a host by id or by
 * address, a service instance), and the check that a token may name each one: the object must be in a business the
 * token covers and in the subscription's own business ({@code scope.bk_biz_id}), which is the wall its plans never
 * cross (docs/api.md, "Subscriptions and businesses").
 */
public final class ScopeReferences {
    /** What a field names. */
    public enum Kind { BUSINESS, SET, MODULE, HOST, HOST_ADDRESS, SERVICE_INSTANCE }

    /** One field naming one object: {@code id}, or for {@link Kind#HOST_ADDRESS} the cloud and the address. */
    public record Reference(String field, Kind kind, Long id, long cloudId, String ip) {
        public String describe() {
            return switch (kind) {
                case BUSINESS -> "business " + id;
                case SET -> "set " + id;
                case MODULE -> "module " + id;
                case HOST -> "host " + id;
                case HOST_ADDRESS -> "host " + ip + " (cloud " + cloudId + ")";
                case SERVICE_INSTANCE -> "service instance " + id;
            };
        }
    }

    /**
     * A field refused: {@code forbidden} when the token may not name the object (403), otherwise the object is not
     * in the subscription's business or does not exist (422).
     */
    public record Refusal(String field, String message, boolean forbidden) {
    }

    /** Keys of an {@code instance_selector} (their last part) whose values name objects. */
    private static final Map<String, Kind> SELECTOR_KEYS = Map.of("bk_biz_id", Kind.BUSINESS, "bk_set_id", Kind.SET,
            "bk_module_id", Kind.MODULE, "bk_module_ids", Kind.MODULE, "bk_host_id", Kind.HOST);

    private ScopeReferences() {
    }

    /** The references of a body that passed {@link SpecValidator} (fields it refused are left out). */
    public static List<Reference> of(SubscriptionSpec spec) {
        List<Reference> out = new ArrayList<>();
        SubscriptionSpec.Scope scope = spec.scope();
        out.add(new Reference("scope.bk_biz_id", Kind.BUSINESS, scope.bkBizId(), 0, null));
        for (int i = 0; i < scope.nodes().size(); i++) {
            node(out, "scope.nodes[" + i + "]", scope.nodes().get(i));
        }
        if (spec.targetHosts() != null) {
            for (int i = 0; i < spec.targetHosts().size(); i++) {
                node(out, "target_hosts[" + i + "]", spec.targetHosts().get(i));
            }
        }
        scope.instanceSelector().forEach((key, value) -> {
            Kind kind = SELECTOR_KEYS.get(key.substring(key.lastIndexOf('.') + 1));
            if (kind == null) {
                return; // other keys only narrow the subscription's own instances
            }
            String at = "scope.instance_selector." + key;
            if (value instanceof List<?> list) {
                for (int j = 0; j < list.size(); j++) {
                    add(out, at + "[" + j + "]", kind, number(list.get(j)));
                }
            } else {
                add(out, at, kind, number(value));
            }
        });
        return out;
    }

    /**
     * Every object a node names, whether or not its node type uses the field (a TOPO node's {@code bk_host_id}, a
     * target host's {@code bk_inst_id}): a body is refused for what it names, not for what is read of it.
     */
    private static void node(List<Reference> out, String at, Node n) {
        if (n.bkBizId() != null) {
            out.add(new Reference(at + ".bk_biz_id", Kind.BUSINESS, n.bkBizId(), 0, null));
        }
        if (n.bkInstId() != null) {
            add(out, at, switch (String.valueOf(n.bkObjId())) {
                case "biz" -> Kind.BUSINESS;
                case "set" -> Kind.SET;
                default -> Kind.MODULE;
            }, n.bkInstId());
        }
        add(out, at, Kind.HOST, n.bkHostId());
        if (n.ip() != null) {
            out.add(new Reference(at, Kind.HOST_ADDRESS, null, n.bkCloudId() == null ? 0 : n.bkCloudId(), n.ip()));
        }
        add(out, at, Kind.SERVICE_INSTANCE, n.id());
    }

    private static void add(List<Reference> out, String at, Kind kind, Long id) {
        if (id != null) {
            out.add(new Reference(at, kind, id, 0, null));
        }
    }

    /** A selector value as an id: a whole number, or text of one (the selector compares as text); else none. */
    private static Long number(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof String s && s.strip().matches("-?[0-9]{1,18}")) {
            return Long.parseLong(s.strip());
        }
        return null;
    }

    /**
     * The refused fields of {@code spec}. {@code businessOf} gives the business an object is in now (null: it does
     * not exist; asked for every kind but {@link Kind#BUSINESS}); {@code covers} says whether the token covers a
     * business (null: no business). To a token that does not cover every business, an object that does not exist is
     * refused exactly as one of a business it does not cover, so that its answers say nothing of other businesses.
     */
    public static List<Refusal> check(SubscriptionSpec spec, Function<Reference, Long> businessOf, Predicate<Long> covers) {
        long own = spec.scope().bkBizId();
        List<Refusal> out = new ArrayList<>();
        for (Reference r : of(spec)) {
            Long biz = r.kind() == Kind.BUSINESS ? r.id() : businessOf.apply(r);
            if (!covers.test(biz)) {
                out.add(new Refusal(r.field(), "names " + r.describe() + ", which is not an object of a business this token covers",
                        true));
            } else if (biz == null) {
                out.add(new Refusal(r.field(), r.describe() + " does not exist", false));
            } else if (!Objects.equals(biz, own)) {
                out.add(new Refusal(r.field(), r.kind() == Kind.BUSINESS
                        ? r.describe() + " is not the subscription's business " + own + " (scope.bk_biz_id)"
                        : r.describe() + " is in business " + biz + ", not in the subscription's business " + own + " (scope.bk_biz_id)",
                        false));
            }
        }
        return out;
    }
}

package io.drover.transport.minion;

import io.drover.core.match.MinionView;
import io.drover.core.match.TargetException;
import io.drover.core.match.TargetExpression;
import java.util.Map;
import java.util.function.Supplier;

/** The minion's own check that a publish targets it (it never trusts the master's expected set alone). */
public interface Targets {

    boolean matches(String tgtType, Object tgt);

    /** A minion known by its id only: grain and ipcidr targets never match it. */
    static Targets byId(String id) {
        return of(id, Map::of);
    }

    /**
     * Salt's matchers against this minion's id and current grains. Nodegroups arrive expanded (the master
     * publishes them as compound targets); an unparsable target does not match.
     */
    static Targets of(String id, Supplier<Map<String, Object>> grains) {
        return (type, tgt) -> {
            try {
                return TargetExpression.parse(type, tgt, Map.of()).matches(new MinionView(id, grains.get()));
            } catch (TargetException e) {
                return false;
            }
        };
    }
}

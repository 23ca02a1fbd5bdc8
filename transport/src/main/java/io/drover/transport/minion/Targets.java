package io.drover.transport.minion;

import io.drover.core.match.Glob;
import java.util.Collection;
import java.util.regex.Pattern;

/** The minion's own check that a publish targets it (it never trusts the master's expected set alone). */
public interface Targets {

    boolean matches(String tgtType, Object tgt);

    /** Salt's id matchers: glob ({@code fnmatch}), pcre (anchored at the start), list (a list or comma-separated). */
    static Targets byId(String id) {
        return (type, tgt) -> switch (type == null ? "glob" : type) {
            case "glob" -> tgt instanceof String g && !g.isEmpty() && Glob.compile(g).matches(id);
            case "pcre" -> tgt instanceof String p && Pattern.compile(p).matcher(id).lookingAt();
            case "list" -> tgt instanceof Collection<?> c ? c.contains(id)
                    : tgt instanceof String s && java.util.Arrays.asList(s.split(",")).contains(id);
            default -> false;
        };
    }
}

package io.drover.model.agentapi;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Salt's argument list: positional values, then keyword arguments in a trailing map marked {@code __kwarg__: true}.
 * The one place that encoding is written; a keyword wins over the positional value of the same argument.
 */
public record SaltArgs(List<Object> positional, Map<String, Object> keywords) {
    public static final String KWARG_MARK = "__kwarg__";

    public SaltArgs {
        positional = java.util.Collections.unmodifiableList(new ArrayList<>(positional));
        keywords = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(keywords));
    }

    /** Splits a received argument list. */
    public static SaltArgs parse(List<?> args) {
        List<Object> positional = new ArrayList<>();
        Map<String, Object> keywords = new LinkedHashMap<>();
        for (Object a : args == null ? List.of() : args) {
            if (a instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get(KWARG_MARK))) {
                m.forEach((k, v) -> {
                    if (!KWARG_MARK.equals(k)) {
                        keywords.put(String.valueOf(k), v);
                    }
                });
            } else {
                positional.add(a);
            }
        }
        return new SaltArgs(positional, keywords);
    }

    /** The list as Salt publishes it. */
    public List<Object> toList() {
        List<Object> out = new ArrayList<>(positional);
        if (!keywords.isEmpty()) {
            Map<String, Object> kwarg = new LinkedHashMap<>(keywords);
            kwarg.put(KWARG_MARK, true);
            out.add(kwarg);
        }
        return out;
    }

    /** The keyword {@code name}, else positional {@code index} (−1: keyword only), as it came. */
    public Object raw(int index, String name) {
        return keywords.containsKey(name) ? keywords.get(name)
                : index >= 0 && index < positional.size() ? positional.get(index) : null;
    }

    /** As {@link #raw}, as text (bytes read as UTF-8), or {@code fallback}; a map or list is refused. */
    public String text(int index, String name, String fallback) {
        Object value = raw(index, name);
        if (value instanceof Map<?, ?> || value instanceof List<?>) {
            throw new BadCall("'" + name + "' must be a single value, not " + (value instanceof Map<?, ?> ? "a map" : "a list"));
        }
        return value == null ? fallback : value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** As {@link #text}, and present and not blank. */
    public String required(int index, String name) {
        String value = text(index, name, null);
        if (value == null || value.isBlank()) {
            throw new BadCall("'" + name + "' is required");
        }
        return value;
    }
}

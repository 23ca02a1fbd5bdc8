package io.drover.core.render;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.exptest.ExpTest;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Filters where Jinjava differs from Jinja2 in ways that matter for config files: {@code tojson} with sorted keys,
 * Jinja2's {@code ", "}/{@code ": "} separators and its HTML-safe escaping, and the {@code min}/{@code max} filters
 * Jinjava lacks (it renders them as nothing).
 */
final class Jinja2Filters {
    private Jinja2Filters() {
    }

    static void register(Jinjava jinjava) {
        jinjava.registerFilter(new NamedFilter("tojson", (value, args) -> json(value)));
        jinjava.registerFilter(new NamedFilter("max", (value, args) -> extreme(value, true)));
        jinjava.registerFilter(new NamedFilter("min", (value, args) -> extreme(value, false)));
        jinjava.getGlobalContext().registerExpTest(new NoneTest());
    }

    /** {@code x is none}: true for a missing value and for {@link PyNone}. */
    private static final class NoneTest implements ExpTest {
        @Override
        public String getName() {
            return "none";
        }

        @Override
        public boolean evaluate(Object value, JinjavaInterpreter interpreter, Object... args) {
            return PyNone.isNone(value);
        }
    }

    /** A filter with a name and a function of the value. */
    private record NamedFilter(String name, java.util.function.BiFunction<Object, String[], Object> body) implements Filter {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public Object filter(Object value, JinjavaInterpreter interpreter, String... args) {
            return body.apply(value, args);
        }
    }

    /** Python's json.dumps(value, sort_keys=True) with Jinja2's escaping of {@code < > & '}. */
    static String json(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (PyNone.isNone(value)) {
            out.append("null");
        } else if (value instanceof Boolean || value instanceof Number) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : new TreeMap<String, Object>(stringKeys(map)).entrySet()) {
                out.append(first ? "" : ", ");
                first = false;
                string(e.getKey(), out);
                out.append(": ");
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            boolean first = true;
            for (Object item : list) {
                out.append(first ? "" : ", ");
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            string(String.valueOf(value), out);
        }
    }

    private static Map<String, Object> stringKeys(Map<?, ?> map) {
        Map<String, Object> keys = new TreeMap<>();
        map.forEach((k, v) -> keys.put(String.valueOf(k), v));
        return keys;
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<' -> out.append("\\u003c");
                case '>' -> out.append("\\u003e");
                case '&' -> out.append("\\u0026");
                case '\'' -> out.append("\\u0027");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object extreme(Object value, boolean max) {
        if (!(value instanceof Collection<?> items) || items.isEmpty()) {
            return null;
        }
        List<Object> sorted = new ArrayList<>(items);
        sorted.sort((a, b) -> a instanceof Number x && b instanceof Number y ? Double.compare(x.doubleValue(), y.doubleValue())
                : ((Comparable) a).compareTo(b));
        return max ? sorted.getLast() : sorted.getFirst();
    }
}

package io.drover.core.subscriptions;

import java.util.List;
import java.util.Map;

/**
 * An {@code instance_selector}: every key is a dotted path into the instance's render context ({@code host.os_type},
 * {@code host.rack}, {@code service.labels.env}); the value must equal it, or be a list that contains it.
 */
final class Selector {
    private Selector() {
    }

    static boolean matches(Map<String, Object> selector, ScopeInstance instance) {
        if (selector.isEmpty()) {
            return true;
        }
        Map<String, Object> fields = RenderContext.cmdbInstance(instance, null);
        for (Map.Entry<String, Object> e : selector.entrySet()) {
            Object actual = path(fields, e.getKey());
            Object wanted = e.getValue();
            boolean ok = wanted instanceof List<?> list ? list.stream().anyMatch(w -> same(w, actual)) : same(wanted, actual);
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static Object path(Map<String, Object> root, String dotted) {
        Object at = root;
        for (String part : dotted.split("\\.")) {
            if (!(at instanceof Map<?, ?> map)) {
                return null;
            }
            at = map.get(part);
        }
        return at;
    }

    private static boolean same(Object wanted, Object actual) {
        return actual != null && String.valueOf(wanted).equals(String.valueOf(actual));
    }
}

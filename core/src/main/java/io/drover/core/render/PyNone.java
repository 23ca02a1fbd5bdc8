package io.drover.core.render;

import com.hubspot.jinjava.objects.serialization.PyishSerializable;
import com.hubspot.jinjava.util.HasObjectTruthValue;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code None} in a render context. Jinjava treats an expression whose value is {@code null} as an unknown
 * token, so a key that is present with no value ({@code host.bk_host_outerip: null}) would fail the render where
 * Jinja2 prints {@code None}; context builders put this in place of {@code null}. It prints {@code None}, is false
 * in a test, is {@code null} in {@code tojson} and passes {@code is none}.
 */
public final class PyNone implements HasObjectTruthValue, PyishSerializable {
    public static final PyNone NONE = new PyNone();

    private PyNone() {
    }

    /** {@code value}, or {@link #NONE} for {@code null}. */
    public static Object of(Object value) {
        return value == null ? NONE : value;
    }

    /**
     * {@code value} with every {@code null} inside it (map values, list items, at any depth) replaced by {@link #NONE};
     * maps and lists that hold no {@code null} are returned as they are, the others are copied.
     */
    public static Object replaceNulls(Object value) {
        if (value == null) {
            return NONE;
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> copy = null;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                Object replaced = replaceNulls(e.getValue());
                if (replaced != e.getValue() && copy == null) {
                    copy = new java.util.LinkedHashMap<>(map);
                }
                if (copy != null) {
                    copy.put(e.getKey(), replaced);
                }
            }
            return copy == null ? value : copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = null;
            for (int i = 0; i < list.size(); i++) {
                Object replaced = replaceNulls(list.get(i));
                if (replaced != list.get(i) && copy == null) {
                    copy = new java.util.ArrayList<>(list);
                }
                if (copy != null) {
                    copy.set(i, replaced);
                }
            }
            return copy == null ? value : copy;
        }
        return value;
    }

    public static boolean isNone(Object value) {
        return value == null || value == NONE;
    }

    @Override
    public boolean getObjectTruthValue() {
        return false;
    }

    @Override
    public <T extends Appendable & CharSequence> T appendPyishString(T appendable) throws IOException {
        appendable.append("None");
        return appendable;
    }

    @Override
    public String toString() {
        return "None";
    }
}

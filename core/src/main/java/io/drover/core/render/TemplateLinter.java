package io.drover.core.render;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks templates when they are registered, before any host is rendered: syntax errors and top-level variables
 * that nothing will provide are reported with the template and line. Everything below a known root
 * ({@code cmdb_instance.host.anything}) is accepted, since its keys depend on the CMDB record.
 */
public final class TemplateLinter {
    private final TemplateRenderer renderer;

    public TemplateLinter(TemplateRenderer renderer) {
        this.renderer = renderer;
    }

    /** Problems of one template given the top-level names that will exist; empty when it is fine. */
    public List<String> lint(String name, String source, Collection<String> knownNames) {
        Map<String, Object> context = new HashMap<>();
        for (String known : knownNames) {
            context.put(known, new AnyValue());
        }
        List<String> problems = new ArrayList<>();
        try {
            renderer.render(name, source, context);
        } catch (RenderException e) {
            problems.add(e.getMessage());
        }
        return problems;
    }

    /**
     * A stand-in for a value whose shape is not known yet: every key exists and is again such a value; it prints as
     * empty, iterates as empty and compares as a number would not.
     */
    static final class AnyValue extends HashMap<String, Object> {
        @Override
        public Object get(Object key) {
            return new AnyValue();
        }

        @Override
        public boolean containsKey(Object key) {
            return true;
        }

        @Override
        public String toString() {
            return "";
        }
    }
}

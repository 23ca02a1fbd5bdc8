package io.drover.server.addons;

import io.drover.core.packages.PackageException;
import io.drover.core.render.RenderException;
import io.drover.core.render.PyNone;
import io.drover.core.render.TemplateRenderer;
import java.util.HashMap;
import java.util.Map;

/** Renders an addon's NOTES.j2 with its parameters; an unknown variable or syntax error is an error, not blank text. */
final class NotesRenderer {
    private final TemplateRenderer renderer = new TemplateRenderer();

    String render(String addon, String version, String template, Map<String, Object> params) {
        if (template == null || template.isBlank()) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> values = (Map<String, Object>) PyNone.replaceNulls(params);
        Map<String, Object> context = new HashMap<>(values);
        context.put("parameter", values);
        context.put("addon", Map.of("name", addon, "version", version));
        try {
            return renderer.render("NOTES.j2 of " + addon + " " + version, template, context);
        } catch (RenderException e) {
            throw new PackageException(e.getMessage());
        }
    }
}

package io.drover.server.addons;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import io.drover.core.packages.PackageException;
import java.util.Map;
import java.util.stream.Collectors;

/** Renders an addon's NOTES.j2 with its parameters; an unknown variable or syntax error is an error, not blank text. */
final class NotesRenderer {
    private final Jinjava jinjava = new Jinjava(JinjavaConfig.newBuilder().withFailOnUnknownTokens(true)
            .withMaxOutputSize(64 * 1024).withMaxRenderDepth(10).build());

    String render(String addon, String version, String template, Map<String, Object> params) {
        if (template == null || template.isBlank()) {
            return null;
        }
        Map<String, Object> context = new java.util.HashMap<>(params);
        context.put("parameter", params);
        context.put("addon", Map.of("name", addon, "version", version));
        RenderResult result = jinjava.renderForResult(template, context);
        if (!result.getErrors().isEmpty()) {
            throw new PackageException("NOTES.j2 of " + addon + " " + version + " cannot be rendered: "
                    + result.getErrors().stream().map(NotesRenderer::describe).collect(Collectors.joining("; ")));
        }
        return result.getOutput();
    }

    private static String describe(TemplateError e) {
        return e.getMessage() + (e.getLineno() > 0 ? " (line " + e.getLineno() + ")" : "");
    }
}

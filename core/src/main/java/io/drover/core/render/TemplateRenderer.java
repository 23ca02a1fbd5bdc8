package io.drover.core.render;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.InterpretException;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.loader.ResourceLocator;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import com.hubspot.jinjava.tree.Node;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders config templates with Jinjava, strictly and within bounds: an unknown variable, a syntax error or output
 * over the limit is a {@link RenderException} naming the template and line, never blank text. Templates cannot
 * include or import files (there is no loader), and recursion and output size are limited.
 */
public final class TemplateRenderer {
    public static final long MAX_OUTPUT = 1L << 20;

    private static final int MAX_CACHED = 10_000;

    /** A parsed template and the errors parsing found (reported on every render). */
    private record Compiled(Node tree, List<TemplateError> errors) {
    }

    private final Jinjava jinjava;
    private final Map<String, Compiled> compiled = new ConcurrentHashMap<>();

    public TemplateRenderer() {
        jinjava = new Jinjava(JinjavaConfig.newBuilder()
                .withFailOnUnknownTokens(true)
                .withMaxOutputSize(MAX_OUTPUT)
                .withMaxRenderDepth(10)
                .withMaxListSize(100_000)
                .withMaxMapSize(100_000)
                .withMaxStringLength(MAX_OUTPUT)
                .build());
        jinjava.setResourceLocator(new NoFiles());
    }

    /**
     * Renders one template; {@code name} is used in error messages only. Templates are parsed once and the trees
     * reused (planning renders the same few templates for every instance).
     */
    public String render(String name, String source, Map<String, ?> context) {
        Compiled template = compile(source);
        List<TemplateError> errors = new ArrayList<>(template.errors());
        String output = null;
        if (errors.isEmpty()) {
            JinjavaInterpreter interpreter = new JinjavaInterpreter(jinjava,
                    new Context(jinjava.getGlobalContext(), context, jinjava.getGlobalConfig().getDisabled()),
                    jinjava.getGlobalConfig());
            JinjavaInterpreter.pushCurrent(interpreter);
            try {
                output = interpreter.render(template.tree());
                errors.addAll(interpreter.getErrorsCopy());
            } catch (InterpretException e) {
                throw new RenderException("template " + name + ": " + (e.getLineNumber() > 0 ? "line " + e.getLineNumber()
                        + ": " : "") + e.getMessage());
            } catch (RuntimeException e) {
                throw new RenderException("template " + name + ": " + e.getMessage());
            } finally {
                JinjavaInterpreter.popCurrent();
            }
        }
        if (!errors.isEmpty()) {
            throw new RenderException("template " + name + ": " + errors.stream()
                    .map(TemplateRenderer::describe).distinct().collect(Collectors.joining("; ")));
        }
        return output;
    }

    private Compiled compile(String source) {
        Compiled found = compiled.get(source);
        if (found != null) {
            return found;
        }
        if (compiled.size() >= MAX_CACHED) {
            compiled.clear();
        }
        JinjavaInterpreter interpreter = jinjava.newInterpreter();
        JinjavaInterpreter.pushCurrent(interpreter);
        try {
            Node tree = interpreter.parse(source);
            Compiled c = new Compiled(tree, List.copyOf(interpreter.getErrorsCopy()));
            compiled.put(source, c);
            return c;
        } finally {
            JinjavaInterpreter.popCurrent();
        }
    }

    /**
     * Renders a step's {@code params.context} against the base context: string values are templates themselves
     * (e.g. {@code "{{ cmdb_instance.service.labels.mysql_user }}"}); nested maps and lists are rendered the same way.
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> renderValues(String step, Map<String, Object> values, Map<String, ?> base) {
        Map<String, Object> rendered = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            rendered.put(e.getKey(), renderValue(step + ".context." + e.getKey(), e.getValue(), base));
        }
        return rendered;
    }

    @SuppressWarnings("unchecked")
    private Object renderValue(String name, Object value, Map<String, ?> base) {
        if (value instanceof String s) {
            return s.contains("{") ? render(name, s, base) : s;
        }
        if (value instanceof Map<?, ?> m) {
            return renderValues(name, (Map<String, Object>) m, base);
        }
        if (value instanceof java.util.List<?> list) {
            java.util.List<Object> out = new java.util.ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                out.add(renderValue(name + "[" + i + "]", list.get(i), base));
            }
            return out;
        }
        return value;
    }

    public static String md5(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String describe(TemplateError e) {
        return (e.getLineno() > 0 ? "line " + e.getLineno() + ": " : "") + e.getMessage();
    }

    /** No template may read files: include, import and from fail with a clear error. */
    private static final class NoFiles implements ResourceLocator {
        @Override
        public String getString(String fullName, Charset encoding, com.hubspot.jinjava.interpret.JinjavaInterpreter interpreter)
                throws IOException {
            throw new IOException("templates cannot include or import other files ('" + fullName + "')");
        }
    }
}

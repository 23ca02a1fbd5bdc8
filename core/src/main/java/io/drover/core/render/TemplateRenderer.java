package io.drover.core.render;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.InterpretException;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.loader.ResourceLocator;
import java.io.IOException;
import java.nio.charset.Charset;
import com.hubspot.jinjava.tree.ExpressionNode;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Renders config templates with Jinjava, strictly and within bounds: an unknown variable, a syntax error or output
 * over the limit is a {@link RenderException} naming the template and line, never blank text. Templates cannot
 * include or import files (there is no loader), and recursion, output size and render time are limited.
 *
 * <p>Rendering is deterministic: the same template and context give the same text. Jinjava's filters and functions
 * that read randomness or the clock are disabled ({@link #NOT_DETERMINISTIC}), because planning compares the md5 of
 * a render with what is deployed and pushes a render made again later, which must be the same text.
 */
public final class TemplateRenderer {
    public static final long MAX_OUTPUT = 1L << 20;

    public static final java.time.Duration DEFAULT_TIME_LIMIT = java.time.Duration.ofSeconds(2);

    private static final int MAX_CACHED = 10_000;

    /**
     * Filters that pick at random ({@code random}, {@code shuffle}) or read the current time when given no date or a
     * null one (every date filter of Jinjava 2.8.4). {@code strtotime} and {@code strtodate} only parse their argument
     * and stay available.
     */
    public static final Set<String> NOT_DETERMINISTIC_FILTERS = Set.of("random", "shuffle", "unixtimestamp",
            "datetimeformat", "date", "format_date", "format_datetime", "format_time", "plus_time", "minus_time",
            "between_times");

    /** Functions that read the current time ({@code today()}, {@code unixtimestamp()}) or do without an argument. */
    public static final Set<String> NOT_DETERMINISTIC_FUNCTIONS = Set.of("today", "unixtimestamp", "datetimeformat",
            "format_date", "format_datetime", "format_time");

    /** Every name templates cannot use because it would not render the same text twice. */
    public static final Set<String> NOT_DETERMINISTIC = union(NOT_DETERMINISTIC_FILTERS, NOT_DETERMINISTIC_FUNCTIONS);

    /** A filter after a pipe, or a function called by name (not a method such as {@code x.today()}). */
    private static final Pattern NOT_DETERMINISTIC_USE = Pattern.compile("\\|\\s*(" + String.join("|", NOT_DETERMINISTIC_FILTERS)
            + ")\\b|(?<![\\w.])(" + String.join("|", NOT_DETERMINISTIC_FUNCTIONS) + ")\\s*\\(");

    /** The deadline (System.nanoTime) of the render running on this thread; checked before every node renders. */
    private static final ThreadLocal<long[]> DEADLINE = ThreadLocal.withInitial(() -> new long[1]);

    /** A parsed template and the errors parsing found (reported on every render). */
    private record Compiled(Node tree, List<TemplateError> errors) {
    }

    private final Jinjava jinjava;
    private final Map<String, Compiled> compiled = new ConcurrentHashMap<>();
    private final long timeLimitNanos;

    public TemplateRenderer() {
        this(DEFAULT_TIME_LIMIT);
    }

    /** A renderer that fails any single template render taking longer than {@code timeLimit}. */
    public TemplateRenderer(java.time.Duration timeLimit) {
        this.timeLimitNanos = timeLimit.toNanos();
        jinjava = new Jinjava(JinjavaConfig.newBuilder()
                .withFailOnUnknownTokens(true)
                .withMaxOutputSize(MAX_OUTPUT)
                .withMaxRenderDepth(10)
                // Jinja2 never renders a value again: a CMDB attribute or a secret that holds "{{" is printed as it is,
                // not evaluated (Jinjava re-renders such output by default).
                .withNestedInterpretationEnabled(false)
                .withMaxListSize(100_000)
                .withMaxMapSize(100_000)
                .withMaxStringLength(MAX_OUTPUT)
                .withNodePreProcessor((node, interpreter) -> checkDeadline(node))
                .withLegacyOverrides(LegacyOverrides.newBuilder().withUsePyishObjectMapper(true).build())
                .withInterperterFactory(PythonicInterpreter.FACTORY)
                .withDisabled(Map.of(Context.Library.FILTER, NOT_DETERMINISTIC_FILTERS,
                        Context.Library.FUNCTION, functionKeys(NOT_DETERMINISTIC_FUNCTIONS)))
                .withElResolver(new PythonStringMethods(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY))
                .build());
        jinjava.setResourceLocator(new NoFiles());
        Jinja2Filters.register(jinjava);
    }

    /**
     * Renders one template; {@code name} is used in error messages only. Templates are parsed once and the trees
     * reused (planning renders the same few templates for every instance). A value that is present but empty should
     * be {@link PyNone#NONE}: Jinjava reports an expression whose value is {@code null} as an unknown variable.
     */
    public String render(String name, String source, Map<String, ?> context) {
        Compiled template = compile(source);
        List<TemplateError> errors = new ArrayList<>(template.errors());
        String output = null;
        if (errors.isEmpty()) {
            JinjavaInterpreter interpreter = new PythonicInterpreter(jinjava,
                    new Context(jinjava.getGlobalContext(), context, jinjava.getGlobalConfig().getDisabled()),
                    jinjava.getGlobalConfig());
            JinjavaInterpreter.pushCurrent(interpreter);
            long[] deadline = DEADLINE.get();
            long outerDeadline = deadline[0];
            deadline[0] = System.nanoTime() + timeLimitNanos;
            try {
                output = interpreter.render(template.tree());
                errors.addAll(interpreter.getErrorsCopy());
            } catch (TimeLimitExceeded e) {
                throw timeLimit(name, e);
            } catch (InterpretException e) {
                if (timedOut(e) instanceof TimeLimitExceeded t) {
                    throw timeLimit(name, t);
                }
                throw failure(name, template, (e.getLineNumber() > 0 ? "line " + e.getLineNumber() + ": " : "")
                        + e.getMessage());
            } catch (RuntimeException e) {
                throw failure(name, template, e.getMessage());
            } finally {
                deadline[0] = outerDeadline;
                JinjavaInterpreter.popCurrent();
            }
        }
        if (!errors.isEmpty()) {
            throw failure(name, template, errors.stream().map(TemplateRenderer::describe).distinct()
                    .collect(Collectors.joining("; ")));
        }
        return output;
    }

    /**
     * The syntax errors of a template, each with its line, and every use of a filter or function that is not
     * available ({@link #NOT_DETERMINISTIC}); empty when it parses and uses none. Nothing is rendered.
     */
    public List<String> syntaxErrors(String source) {
        Compiled template = compile(source);
        List<String> errors = new ArrayList<>(template.errors().stream().map(TemplateRenderer::describe).distinct().toList());
        if (errors.isEmpty()) {
            notDeterministicUses(template.tree(), errors);
        }
        return errors;
    }

    /** Looks in the expressions of tags and {@code {{ }}} (not in plain text) for a name that is disabled. */
    private static void notDeterministicUses(Node node, List<String> errors) {
        String expression = switch (node) {
            case ExpressionNode e -> e.getMaster().getImage();
            case TagNode t -> t.getHelpers();
            default -> "";
        };
        Matcher m = NOT_DETERMINISTIC_USE.matcher(expression);
        while (m.find()) {
            String error = "line " + node.getLineNumber() + ": " + notDeterministic(m.group(1) != null ? m.group(1) : m.group(2));
            if (!errors.contains(error)) {
                errors.add(error);
            }
        }
        for (Node child : node.getChildren()) {
            notDeterministicUses(child, errors);
        }
    }

    private static String notDeterministic(String token) {
        String name = token.startsWith(":") ? token.substring(1) : token;
        return "'" + name + "' is not available: templates are deterministic (no randomness, no current time), "
                + "so that what is pushed is what was planned";
    }

    /** Jinjava names functions {@code namespace:name}; the built-in ones have an empty namespace. */
    private static Set<String> functionKeys(Set<String> names) {
        Set<String> keys = new java.util.HashSet<>();
        names.forEach(n -> keys.add(":" + n));
        return Set.copyOf(keys);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return java.util.Collections.unmodifiableSet(all);
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
            Node tree = interpreter.parse(withoutTrailingNewline(source));
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
        return PyNone.of(value);
    }

    /** Jinjava reports a disabled filter or function as an unknown token: such a failure names it and says why. */
    private static RenderException failure(String name, Compiled template, String message) {
        List<String> disabled = new ArrayList<>();
        notDeterministicUses(template.tree(), disabled);
        return new RenderException("template " + name + ": " + (disabled.isEmpty() ? message : String.join("; ", disabled)));
    }

    private RenderException timeLimit(String name, TimeLimitExceeded e) {
        return new RenderException("template " + name + ": line " + e.line + ": rendering took longer than "
                + java.time.Duration.ofNanos(timeLimitNanos).toMillis() + " ms");
    }

    /** Jinjava wraps exceptions thrown while rendering a tag; the time limit may sit a few causes deep. */
    private static Throwable timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeLimitExceeded) {
                return t;
            }
        }
        return null;
    }

    /** Jinja2 (keep_trailing_newline=False) drops one newline at the end of a template. */
    private static String withoutTrailingNewline(String source) {
        if (source.endsWith("\r\n")) {
            return source.substring(0, source.length() - 2);
        }
        return source.endsWith("\n") || source.endsWith("\r") ? source.substring(0, source.length() - 1) : source;
    }

    private static void checkDeadline(Node node) {
        long deadline = DEADLINE.get()[0];
        if (deadline != 0 && System.nanoTime() - deadline > 0) {
            throw new TimeLimitExceeded(node.getLineNumber());
        }
    }

    /** Thrown from inside Jinjava's tree walk; unchecked and stackless so it unwinds cheaply. */
    private static final class TimeLimitExceeded extends RuntimeException {
        final int line;

        TimeLimitExceeded(int line) {
            super("time limit exceeded", null, false, false);
            this.line = line;
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

package io.drover.core.render;

import java.beans.FeatureDescriptor;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's {@code str} methods that Jinja2 templates call on strings ({@code name.upper()},
 * {@code ip.startswith('10.')}, {@code path.split('/')}); everything else goes to Jinjava's own resolver.
 */
final class PythonStringMethods extends ELResolver {
    private final ELResolver next;

    PythonStringMethods(ELResolver next) {
        this.next = next;
    }

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (base instanceof String s && method instanceof String name) {
            Object[] args = params == null ? new Object[0] : params;
            Object result = call(s, name, args);
            if (result != NOT_A_METHOD) {
                context.setPropertyResolved(true);
                return result;
            }
        }
        return next.invoke(context, base, method, paramTypes, params);
    }

    private static final Object NOT_A_METHOD = new Object();

    private static Object call(String s, String name, Object[] args) {
        return switch (name + "/" + args.length) {
            case "upper/0" -> s.toUpperCase(Locale.ROOT);
            case "lower/0" -> s.toLowerCase(Locale.ROOT);
            case "strip/0" -> s.strip();
            case "lstrip/0" -> s.stripLeading();
            case "rstrip/0" -> s.stripTrailing();
            case "strip/1" -> stripChars(s, text(args[0]), true, true);
            case "lstrip/1" -> stripChars(s, text(args[0]), true, false);
            case "rstrip/1" -> stripChars(s, text(args[0]), false, true);
            case "startswith/1" -> s.startsWith(text(args[0]));
            case "endswith/1" -> s.endsWith(text(args[0]));
            case "split/0" -> s.isBlank() ? List.of() : Arrays.asList(s.strip().split("\\s+"));
            case "split/1" -> split(s, text(args[0]));
            case "replace/2" -> s.replace(text(args[0]), text(args[1]));
            case "find/1" -> (long) s.indexOf(text(args[0]));
            case "count/1" -> count(s, text(args[0]));
            case "isdigit/0" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
            case "capitalize/0" -> s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT)
                    + s.substring(1).toLowerCase(Locale.ROOT);
            case "title/0" -> title(s);
            case "join/1" -> args[0] instanceof Iterable<?> items ? join(s, items) : NOT_A_METHOD;
            default -> NOT_A_METHOD;
        };
    }

    private static String text(Object arg) {
        return String.valueOf(arg);
    }

    private static List<String> split(String s, String separator) {
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("split: empty separator");
        }
        List<String> parts = new java.util.ArrayList<>();
        int from = 0;
        for (int at = s.indexOf(separator); at >= 0; at = s.indexOf(separator, from)) {
            parts.add(s.substring(from, at));
            from = at + separator.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    private static String stripChars(String s, String chars, boolean leading, boolean trailing) {
        int start = 0;
        int end = s.length();
        while (leading && start < end && chars.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (trailing && end > start && chars.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }

    private static long count(String s, String part) {
        if (part.isEmpty()) {
            return s.length() + 1L;
        }
        long n = 0;
        for (int at = s.indexOf(part); at >= 0; at = s.indexOf(part, at + part.length())) {
            n++;
        }
        return n;
    }

    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean previousLetter = false;
        for (char c : s.toCharArray()) {
            out.append(previousLetter ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousLetter = Character.isLetter(c);
        }
        return out.toString();
    }

    private static String join(String separator, Iterable<?> items) {
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (Object item : items) {
            out.append(first ? "" : separator).append(item);
            first = false;
        }
        return out.toString();
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return next.getCommonPropertyType(context, base);
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return next.getFeatureDescriptors(context, base);
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return next.getType(context, base, property);
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return next.getValue(context, base, property);
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return next.isReadOnly(context, base, property);
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
        next.setValue(context, base, property, value);
    }
}

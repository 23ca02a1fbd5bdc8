package io.drover.core.subscriptions;

import io.drover.model.api.Problem.FieldError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Secrets in a subscription step's {@code params.context} (docs/operations.md, "Secrets for plugins"): a top-level value
 * {@code {"secret": "NAME"}} names a secret stored in the subscription's business. The subscription holds the name
 * only; planning renders {@link #REDACTED} in its place, and the value is read only to build the job that carries it.
 */
public final class SecretReferences {
    /** What stored jobs, events, returns and answers show instead of a secret. */
    public static final String REDACTED = "«redacted»";
    /** Names of stored secrets. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /**
     * A secret as a render uses it: its name, the value rendered in its place ({@link #REDACTED} when planning, the
     * secret itself when the job is built), and a stamp that changes whenever the stored secret does.
     */
    public record SecretValue(String name, String value, String stamp) {
        public SecretValue withValue(String value) {
            return new SecretValue(name, value, stamp);
        }
    }

    private SecretReferences() {
    }

    /** The secret a context value names, or null when the value is not a reference. */
    public static String nameOf(Object value) {
        return value instanceof Map<?, ?> map && map.size() == 1 && map.get("secret") instanceof String name ? name : null;
    }

    /** Context key → secret name, for every top-level reference of a step's context. */
    public static Map<String, String> of(Map<String, Object> context) {
        Map<String, String> refs = new LinkedHashMap<>();
        context.forEach((key, value) -> {
            String name = nameOf(value);
            if (name != null) {
                refs.put(key, name);
            }
        });
        return refs;
    }

    /**
     * What is wrong with the secrets of a step's context ({@code field}: the context's field name): a reference
     * with a bad name or below the top level, and a parameter the package marks secret given in clear.
     */
    public static List<FieldError> problems(String field, Map<String, Object> context, Set<String> secretParameters,
                                            String plugin) {
        List<FieldError> problems = new ArrayList<>();
        context.forEach((key, value) -> {
            String name = nameOf(value);
            if (name != null && !NAME.matcher(name).matches()) {
                problems.add(new FieldError(field + "." + key, "the secret name must be 1 to 64 letters, digits, '_', '.' "
                        + "or '-', starting with a letter or digit"));
            } else if (name == null && value instanceof Map<?, ?> map && map.containsKey("secret")) {
                problems.add(new FieldError(field + "." + key, "a secret reference is {secret: NAME} and nothing else"));
            } else if (name == null && secretParameters.contains(key) && value != null) {
                problems.add(new FieldError(field + "." + key, "is a secret parameter of " + plugin + ": give it as "
                        + "{secret: NAME}, naming a secret stored with 'drover secret set NAME --biz BIZ', never in clear"));
            }
            if (name == null) {
                nested(field + "." + key, value, problems);
            }
        });
        return problems;
    }

    private static void nested(String field, Object value, List<FieldError> problems) {
        switch (value) {
            case Map<?, ?> map -> map.forEach((k, v) -> {
                if (nameOf(v) != null) {
                    problems.add(new FieldError(field + "." + k, "a secret reference may only be a top-level value of the "
                            + "context; reference it there and use it in the template"));
                } else {
                    nested(field + "." + k, v, problems);
                }
            });
            case List<?> list -> {
                for (int i = 0; i < list.size(); i++) {
                    if (nameOf(list.get(i)) != null) {
                        problems.add(new FieldError(field + "[" + i + "]", "a secret reference may only be a top-level "
                                + "value of the context"));
                    } else {
                        nested(field + "[" + i + "]", list.get(i), problems);
                    }
                }
            }
            case null, default -> { }
        }
    }
}

package io.drover.core.packages;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The subset of JSON Schema a package's {@code parameters} may use: {@code type} (object, array, string, integer,
 * number, boolean), {@code properties}, {@code required}, {@code additionalProperties: false}, {@code items},
 * {@code enum}, {@code default}, {@code minimum}/{@code maximum}, {@code minLength}/{@code maxLength},
 * {@code pattern}, {@code description}, {@code title}. A property marked {@code secret: true},
 * {@code writeOnly: true} or {@code format: password} is a secret: masked when shown, and in a subscription step
 * given only as a reference to a stored secret (docs/operations.md, "Secrets for plugins").
 */
public final class ParamsSchema {
    private static final Set<String> TYPES = Set.of("object", "array", "string", "integer", "number", "boolean");
    private static final Set<String> KEYWORDS = Set.of("type", "properties", "required", "additionalProperties",
            "items", "enum", "default", "minimum", "maximum", "minLength", "maxLength", "pattern", "description",
            "title", "format", "writeOnly", "secret", "examples", "$schema");

    private final Map<String, Object> schema;

    private ParamsSchema(Map<String, Object> schema) {
        this.schema = schema;
    }

    /** Checks the schema itself; every problem is named with its JSON path. */
    public static ParamsSchema of(Map<String, Object> schema) {
        List<String> problems = new ArrayList<>();
        if (schema != null && !schema.isEmpty()) {
            checkSchema("parameters", schema, problems);
            if (schema.get("type") != null && !"object".equals(schema.get("type"))) {
                problems.add("parameters: the top-level type must be object");
            }
        }
        if (!problems.isEmpty()) {
            throw new PackageException(problems);
        }
        return new ParamsSchema(schema == null ? Map.of() : schema);
    }

    @SuppressWarnings("unchecked")
    private static void checkSchema(String at, Object node, List<String> problems) {
        if (!(node instanceof Map<?, ?> map)) {
            problems.add(at + ": a schema must be a mapping");
            return;
        }
        for (Object key : map.keySet()) {
            if (!KEYWORDS.contains(String.valueOf(key))) {
                problems.add(at + ": unsupported keyword '" + key + "'");
            }
        }
        Object type = map.get("type");
        if (type != null && !TYPES.contains(String.valueOf(type))) {
            problems.add(at + ".type: '" + type + "' is not one of " + TYPES);
        }
        Object properties = map.get("properties");
        if (properties != null) {
            if (properties instanceof Map<?, ?> props) {
                props.forEach((name, sub) -> checkSchema(at + ".properties." + name, sub, problems));
            } else {
                problems.add(at + ".properties: must be a mapping of names to schemas");
            }
        }
        Object required = map.get("required");
        if (required != null) {
            if (!(required instanceof List<?> names) || names.stream().anyMatch(n -> !(n instanceof String))) {
                problems.add(at + ".required: must be a list of property names");
            } else if (properties instanceof Map<?, ?> props) {
                for (Object name : names) {
                    if (!props.containsKey(name)) {
                        problems.add(at + ".required: '" + name + "' is not among the properties");
                    }
                }
            }
        }
        if (map.get("items") != null) {
            checkSchema(at + ".items", map.get("items"), problems);
        }
        if (map.get("enum") != null && !(map.get("enum") instanceof List<?>)) {
            problems.add(at + ".enum: must be a list");
        }
        if (map.get("pattern") != null) {
            try {
                Pattern.compile(String.valueOf(map.get("pattern")));
            } catch (PatternSyntaxException e) {
                problems.add(at + ".pattern: not a regular expression: " + e.getDescription());
            }
        }
        if (map.get("secret") != null && !(map.get("secret") instanceof Boolean)) {
            problems.add(at + ".secret: must be true or false");
        }
        for (String number : List.of("minimum", "maximum", "minLength", "maxLength")) {
            if (map.get(number) != null && !(map.get(number) instanceof Number)) {
                problems.add(at + "." + number + ": must be a number");
            }
        }
        if (map.get("default") != null && type != null && TYPES.contains(String.valueOf(type))) {
            List<String> bad = new ArrayList<>();
            validate(at + ".default", map.get("default"), (Map<String, Object>) map, bad);
            problems.addAll(bad);
        }
    }

    /** The parameters with defaults filled in; throws naming every value that does not fit the schema. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> apply(Map<String, Object> params) {
        Map<String, Object> withDefaults = new LinkedHashMap<>();
        Object properties = schema.get("properties");
        if (properties instanceof Map<?, ?> props) {
            props.forEach((name, sub) -> {
                if (sub instanceof Map<?, ?> s && s.get("default") != null) {
                    withDefaults.put(String.valueOf(name), s.get("default"));
                }
            });
        }
        withDefaults.putAll(params == null ? Map.of() : params);
        List<String> problems = new ArrayList<>();
        if (!schema.isEmpty()) {
            validate("params", withDefaults, schema, problems);
        }
        if (!problems.isEmpty()) {
            throw new PackageException(problems);
        }
        return withDefaults;
    }

    /** Names of top-level parameters that are secrets. */
    public Set<String> secrets() {
        Set<String> secrets = new java.util.TreeSet<>();
        if (schema.get("properties") instanceof Map<?, ?> props) {
            props.forEach((name, sub) -> {
                if (sub instanceof Map<?, ?> s && (Boolean.TRUE.equals(s.get("secret")) || Boolean.TRUE.equals(s.get("writeOnly"))
                        || "password".equals(s.get("format")))) {
                    secrets.add(String.valueOf(name));
                }
            });
        }
        return secrets;
    }

    @SuppressWarnings("unchecked")
    private static void validate(String at, Object value, Map<String, Object> schema, List<String> problems) {
        Object type = schema.get("type");
        if (type != null && !hasType(value, String.valueOf(type))) {
            problems.add(at + ": must be " + article(String.valueOf(type)) + ", got " + describe(value));
            return;
        }
        if (schema.get("enum") instanceof List<?> allowed && !allowed.contains(value)
                && allowed.stream().noneMatch(a -> a instanceof Number n && value instanceof Number v
                        && n.doubleValue() == v.doubleValue())) {
            problems.add(at + ": must be one of " + allowed + ", got " + describe(value));
        }
        if (value instanceof Number n) {
            if (schema.get("minimum") instanceof Number min && n.doubleValue() < min.doubleValue()) {
                problems.add(at + ": must be at least " + min + ", got " + n);
            }
            if (schema.get("maximum") instanceof Number max && n.doubleValue() > max.doubleValue()) {
                problems.add(at + ": must be at most " + max + ", got " + n);
            }
        }
        if (value instanceof String s) {
            if (schema.get("minLength") instanceof Number min && s.length() < min.intValue()) {
                problems.add(at + ": must be at least " + min + " characters long");
            }
            if (schema.get("maxLength") instanceof Number max && s.length() > max.intValue()) {
                problems.add(at + ": must be at most " + max + " characters long");
            }
            if (schema.get("pattern") != null && !Pattern.compile(String.valueOf(schema.get("pattern"))).matcher(s).find()) {
                problems.add(at + ": does not match the pattern " + schema.get("pattern"));
            }
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> props = schema.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
            if (schema.get("required") instanceof List<?> required) {
                for (Object name : required) {
                    if (map.get(name) == null) {
                        problems.add(at + "." + name + ": is required");
                    }
                }
            }
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String name = String.valueOf(e.getKey());
                if (props.get(name) instanceof Map<?, ?> sub) {
                    if (e.getValue() != null) {
                        validate(at + "." + name, e.getValue(), (Map<String, Object>) sub, problems);
                    }
                } else if (Boolean.FALSE.equals(schema.get("additionalProperties"))) {
                    problems.add(at + "." + name + ": is not a known parameter; known: " + props.keySet());
                }
            }
        }
        if (value instanceof List<?> list && schema.get("items") instanceof Map<?, ?> items) {
            for (int i = 0; i < list.size(); i++) {
                validate(at + "[" + i + "]", list.get(i), (Map<String, Object>) items, problems);
            }
        }
    }

    private static boolean hasType(Object value, String type) {
        return switch (type) {
            case "object" -> value instanceof Map<?, ?>;
            case "array" -> value instanceof List<?>;
            case "string" -> value instanceof String;
            case "integer" -> value instanceof Integer || value instanceof Long || value instanceof java.math.BigInteger
                    || (value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()) && !(value instanceof Float));
            case "number" -> value instanceof Number;
            case "boolean" -> value instanceof Boolean;
            default -> true;
        };
    }

    private static String article(String type) {
        return (type.startsWith("a") || type.startsWith("i") || type.startsWith("o") ? "an " : "a ") + type;
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        String kind = value instanceof Map<?, ?> ? "an object" : value instanceof List<?> ? "an array"
                : value instanceof String ? "a string" : value instanceof Boolean ? "a boolean" : "a number";
        return kind + (value instanceof Map<?, ?> || value instanceof List<?> ? "" : " (" + value + ")");
    }

    /** Parameters for display: secrets replaced by {@code ******}. */
    public Map<String, Object> masked(Map<String, Object> params) {
        Map<String, Object> shown = new LinkedHashMap<>(params);
        for (String secret : secrets()) {
            shown.computeIfPresent(secret, (k, v) -> "******");
        }
        return shown;
    }
}

package io.drover.server.http;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the OpenAPI 3.1 document from the declared routes, so the document cannot drift from what is served.
 * Schemas are derived from the request and response records (snake_case, as on the wire).
 */
public final class OpenApiDocument {
    private static final Pattern PATH_PARAM = Pattern.compile("\\{([^}]+)}");

    private OpenApiDocument() {
    }

    public static Map<String, Object> build(List<Route> routes, String version) {
        Map<String, Object> schemas = new TreeMap<>();
        schemas.put("Problem", schemaOf(io.drover.model.api.Problem.class, schemas));
        Map<String, Object> paths = new TreeMap<>();
        Map<String, Object> security = new TreeMap<>(Map.of("bearer", Map.of("type", "http", "scheme", "bearer")));
        for (Route route : routes) {
            OtherCredential other = route.otherCredential();
            if (other != null) {
                security.put(schemeName(other), Map.of("type", "apiKey", "in", "header", "name", "Authorization",
                        "description", "'" + other.scheme() + " <" + other.what() + ">', instead of a token on the routes that name it"));
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> item = (Map<String, Object>) paths.computeIfAbsent(route.path(), k -> new LinkedHashMap<>());
            item.put(route.method().name().toLowerCase(java.util.Locale.ROOT), operation(route, schemas));
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.1.0");
        doc.put("info", Map.of("title", "Drover API", "version", version,
                "description", "Fleet manager control plane. Authenticate with 'Authorization: Bearer <token>'."));
        doc.put("paths", paths);
        doc.put("components", Map.of("schemas", schemas, "securitySchemes", security));
        return doc;
    }

    /** Resources whose {@code {id}} is text: agent ids (minion ids) and plan ids. */
    private static final List<String> TEXT_IDS = List.of(HttpApi.API + "/agents/", HttpApi.API + "/keys/",
            HttpApi.API + "/plans/");

    /** Path parameters named {@code id} or {@code …_id} are numbers, except where the resource's id is text. */
    static boolean numericId(String path, String name) {
        return (name.equals("id") || name.endsWith("_id")) && TEXT_IDS.stream().noneMatch(path::startsWith);
    }

    private static Map<String, Object> operation(Route route, Map<String, Object> schemas) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("summary", route.summary());
        op.put("operationId", route.method().name().toLowerCase(java.util.Locale.ROOT)
                + route.path().replaceAll("[^A-Za-z0-9]+", "_"));
        List<Map<String, Object>> parameters = new ArrayList<>();
        Matcher m = PATH_PARAM.matcher(route.path());
        while (m.find()) {
            parameters.add(Map.of("name", m.group(1), "in", "path", "required", true,
                    "schema", numericId(route.path(), m.group(1)) ? Map.of("type", "integer", "format", "int64")
                            : Map.of("type", "string")));
        }
        if (!parameters.isEmpty()) {
            op.put("parameters", parameters);
        }
        if (route.role() != null) {
            op.put("security", route.otherCredential() == null ? List.of(Map.of("bearer", List.of()))
                    : List.of(Map.of("bearer", List.of()), Map.of(schemeName(route.otherCredential()), List.of())));
            op.put("x-drover-role", route.role().wireName());
            op.put("x-drover-scope", route.scope().name().toLowerCase(java.util.Locale.ROOT));
            if (route.otherCredential() != null) {
                op.put("x-drover-also-accepts", route.otherCredential().what());
            }
        }
        if (route.body() != null) {
            op.put("requestBody", Map.of("required", true, "content",
                    Map.of("application/json", Map.of("schema", ref(route.body(), schemas)))));
        }
        Map<String, Object> responses = new LinkedHashMap<>();
        responses.put(Integer.toString(route.status()), success(route, schemas));
        responses.put("default", Map.of("description", "An error",
                "content", Map.of("application/problem+json", Map.of("schema", Map.of("$ref", "#/components/schemas/Problem")))));
        op.put("responses", responses);
        return op;
    }

    private static Map<String, Object> success(Route route, Map<String, Object> schemas) {
        return switch (route.shape()) {
            case NONE -> Map.of("description", "Done");
            case TEXT -> Map.of("description", "Text", "content", Map.of("text/plain", Map.of("schema", Map.of("type", "string"))));
            case FILE -> Map.of("description", "The file's bytes", "content", Map.of("application/octet-stream",
                    Map.of("schema", Map.of("type", "string", "format", "binary"))));
            case EVENT_STREAM -> Map.of("description", "Server-Sent Events: event = tag, id = event id, data = Event JSON",
                    "content", Map.of("text/event-stream", Map.of("schema", Map.of("type", "string"))));
            case ONE -> json(route.response() == null ? Map.of("type", "object") : ref(route.response(), schemas));
            case LIST -> json(Map.of("type", "array", "items", ref(route.response(), schemas)));
            case PAGE -> json(Map.of("type", "object", "properties", Map.of(
                    "items", Map.of("type", "array", "items", ref(route.response(), schemas)),
                    "total", Map.of("type", "integer"), "offset", Map.of("type", "integer"),
                    "limit", Map.of("type", "integer"))));
        };
    }

    private static String schemeName(OtherCredential other) {
        return other.scheme().toLowerCase(java.util.Locale.ROOT);
    }

    private static Map<String, Object> json(Map<String, Object> schema) {
        return Map.of("description", "OK", "content", Map.of("application/json", Map.of("schema", schema)));
    }

    private static Map<String, Object> ref(Class<?> type, Map<String, Object> schemas) {
        if (!type.isRecord()) {
            return Map.of("type", "object"); // free-form JSON (a Map, an alert payload): no schema of its own
        }
        String name = schemaName(type);
        if (!schemas.containsKey(name)) {
            schemas.put(name, Map.of());
            schemas.put(name, schemaOf(type, schemas));
        }
        return Map.of("$ref", "#/components/schemas/" + name);
    }

    /**
     * A record's schema name: its simple name, prefixed by the records it is nested in ({@code DiagnosisInfoSummary},
     * {@code DiagnosisObjectSummary}), so that two nested records of one name do not share a schema.
     */
    static String schemaName(Class<?> type) {
        return type.getEnclosingClass() == null ? type.getSimpleName() : schemaName(type.getEnclosingClass()) + type.getSimpleName();
    }

    private static Map<String, Object> schemaOf(Class<?> type, Map<String, Object> schemas) {
        if (!type.isRecord()) {
            return Map.of("type", "object");
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            String name = wireName(c);
            properties.put(name, typeSchema(c.getGenericType(), schemas));
            if (c.getType().isPrimitive()) {
                required.add(name); // never null, so always written; other fields are left out when null
            }
        }
        return required.isEmpty() ? Map.of("type", "object", "properties", properties)
                : Map.of("type", "object", "properties", properties, "required", required);
    }

    private static Map<String, Object> typeSchema(Type type, Map<String, Object> schemas) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            if (List.class.isAssignableFrom(raw) || java.util.Set.class.isAssignableFrom(raw)) {
                return Map.of("type", "array", "items", typeSchema(p.getActualTypeArguments()[0], schemas));
            }
            if (Map.class.isAssignableFrom(raw)) {
                return Map.of("type", "object", "additionalProperties", typeSchema(p.getActualTypeArguments()[1], schemas));
            }
            return Map.of("type", "object");
        }
        if (!(type instanceof Class<?> c)) {
            return Map.of();
        }
        if (c == long.class || c == Long.class || c == int.class || c == Integer.class) {
            return Map.of("type", "integer");
        }
        if (c == double.class || c == Double.class || c == float.class || c == Float.class) {
            return Map.of("type", "number");
        }
        if (c == boolean.class || c == Boolean.class) {
            return Map.of("type", "boolean");
        }
        if (c == String.class) {
            return Map.of("type", "string");
        }
        if (c == Object.class) {
            return Map.of();
        }
        if (c.isEnum()) {
            List<Object> values = new ArrayList<>();
            for (Object constant : c.getEnumConstants()) {
                values.add(io.drover.model.Json.json().convertValue(constant, String.class)); // as written on the wire
            }
            return Map.of("type", "string", "enum", values);
        }
        if (java.time.temporal.Temporal.class.isAssignableFrom(c)) {
            return Map.of("type", "string", "format", "date-time");
        }
        if (c.isRecord()) {
            return ref(c, schemas);
        }
        return Map.of("type", "object");
    }

    /** The field's name on the wire: its {@code @JsonProperty} (a reference format's spelling), else snake_case. */
    private static String wireName(RecordComponent c) {
        com.fasterxml.jackson.annotation.JsonProperty named = c.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
        return named != null && !named.value().isEmpty() ? named.value() : snake(c.getName());
    }

    static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
    }
}

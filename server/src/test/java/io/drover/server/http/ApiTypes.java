package io.drover.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the console's REST types ({@code ui/src/api-types.ts}) from the OpenAPI document's component schemas, which
 * the server derives from the {@code model} records: one TypeScript interface per schema, a field optional unless the
 * schema requires it (the server leaves out null fields), enums as unions of their wire spellings.
 */
final class ApiTypes {
    static final String HEADER = """
            // The REST API's types, generated from the server's OpenAPI document (components.schemas, derived from the
            // records in model/). Do not edit: ApiTypesTest fails when this file differs from what the records say now.
            // Regenerate: ./mvnw -pl server -am verify -Dtest=ApiTypesTest -Ddrover.api-types.write=true
            """;

    /** The shape of every paged list answer ({@code Route.Shape.PAGE}), which the document spells out per route. */
    static final String PAGE = """
            export interface Page<T> {
              items: T[];
              total: number;
              offset: number;
              limit: number;
            }
            """;

    private ApiTypes() {
    }

    static String typescript(JsonNode openApi) {
        StringBuilder ts = new StringBuilder(HEADER).append('\n').append(PAGE);
        JsonNode schemas = openApi.path("components").path("schemas");
        List<String> names = new ArrayList<>();
        schemas.fieldNames().forEachRemaining(names::add);
        names.sort(null);
        for (String name : names) {
            ts.append('\n').append(declaration(name, schemas.get(name)));
        }
        return ts.toString();
    }

    private static String declaration(String name, JsonNode schema) {
        JsonNode properties = schema.path("properties");
        if (!properties.isObject()) {
            return "export type " + name + " = " + type(schema) + ";\n";
        }
        Set<String> required = new HashSet<>();
        schema.path("required").forEach(n -> required.add(n.asText()));
        StringBuilder ts = new StringBuilder("export interface ").append(name).append(" {\n");
        for (Map.Entry<String, JsonNode> p : properties.properties()) {
            String field = p.getKey().matches("[A-Za-z_$][A-Za-z0-9_$]*") ? p.getKey() : "'" + p.getKey() + "'";
            ts.append("  ").append(field).append(required.contains(p.getKey()) ? ": " : "?: ").append(type(p.getValue()))
                    .append(";\n");
        }
        return ts.append("}\n").toString();
    }

    static String type(JsonNode schema) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            return ref.substring(ref.lastIndexOf('/') + 1);
        }
        if (schema.has("enum")) {
            List<String> values = new ArrayList<>();
            schema.get("enum").forEach(v -> values.add("'" + v.asText().replace("'", "\\'") + "'"));
            return String.join(" | ", values);
        }
        return switch (schema.path("type").asText()) {
            case "string" -> "string";
            case "integer", "number" -> "number";
            case "boolean" -> "boolean";
            case "array" -> {
                String item = type(schema.path("items"));
                yield (item.contains(" ") ? "(" + item + ")" : item) + "[]";
            }
            case "object" -> "Record<string, " + (schema.has("additionalProperties") ? type(schema.get("additionalProperties"))
                    : "unknown") + ">";
            default -> "unknown";
        };
    }
}

package io.drover.server.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.Json;
import java.sql.SQLException;
import java.util.Map;

/** Small helpers shared by repositories: JSON columns, timestamps, constraint names. */
public final class Sql {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private Sql() {
    }

    public static String toJson(Object value) {
        try {
            return Json.json().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode as JSON: " + e.getMessage(), e);
        }
    }

    public static Map<String, Object> jsonMap(String text) {
        return fromJson(text, MAP);
    }

    public static <T> T fromJson(String text, TypeReference<T> type) {
        try {
            return Json.json().readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is corrupt: " + e.getOriginalMessage(), e);
        }
    }

    public static <T> T fromJson(String text, Class<T> type) {
        try {
            return Json.json().readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is corrupt: " + e.getOriginalMessage(), e);
        }
    }

    /** The name of the violated constraint, lower-cased, or "" when the error is not a constraint violation. */
    public static String violatedConstraint(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                String message = String.valueOf(sql.getMessage()).toLowerCase(java.util.Locale.ROOT);
                for (String name : new String[] {"business_name_unique", "topo_set_name_unique",
                        "topo_module_name_unique", "host_address_unique", "api_token_hash_unique"}) {
                    if (message.contains(name)) {
                        return name;
                    }
                }
                return "constraint";
            }
        }
        return "";
    }
}

package io.drover.server.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.model.Json;
import java.sql.SQLException;
import java.util.Map;

/** Small helpers shared by repositories: JSON columns, timestamps, constraint names. */
public final class Sql {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    /** Drover's mapping, except that null values inside maps are kept. */
    private static final ObjectMapper DOCUMENTS = Json.json().copy()
            .setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.ALWAYS));

    private Sql() {
    }

    public static String toJson(Object value) {
        return toJson(Json.json(), value);
    }

    /**
     * A document Drover carries but does not define (what an agent returned, a plan as given): {@code {"seen": null}}
     * stays so, where Drover's own documents leave out null fields.
     */
    public static String documentToJson(Object value) {
        return toJson(DOCUMENTS, value);
    }

    private static String toJson(ObjectMapper mapper, Object value) {
        try {
            return mapper.writeValueAsString(value);
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
            if (t instanceof SQLException sql && isConstraintViolation(sql)) {
                String message = String.valueOf(sql.getMessage()).toLowerCase(java.util.Locale.ROOT);
                for (Map.Entry<String, String> named : CONSTRAINTS.entrySet()) {
                    if (message.contains(named.getKey()) || message.contains(named.getValue())) {
                        return named.getKey();
                    }
                }
                return "constraint";
            }
        }
        return "";
    }

    /**
     * The unique constraints callers tell apart, with the words SQLite names them by: its messages give the columns
     * ("UNIQUE constraint failed: business.bk_biz_name"), PostgreSQL's the constraint's name.
     */
    private static final Map<String, String> CONSTRAINTS = Map.of(
            "business_name_unique", "business.bk_biz_name",
            "topo_set_name_unique", "topo_set.bk_biz_id, topo_set.bk_set_name",
            "topo_module_name_unique", "topo_module.bk_set_id, topo_module.bk_module_name",
            "host_address_unique", "host.bk_cloud_id, host.bk_host_innerip",
            "api_token_hash_unique", "api_token.token_hash");

    /** SQLSTATE class 23 (PostgreSQL), or SQLite's SQLITE_CONSTRAINT (19) in the low byte of its extended code. */
    private static boolean isConstraintViolation(SQLException sql) {
        if (sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
            return true;
        }
        return sql.getClass().getName().equals("org.sqlite.SQLiteException") && (sql.getErrorCode() & 0xff) == 19;
    }

    /** True when a write failed because the database's disk is full (SQLITE_FULL; PostgreSQL's disk_full, 53100). */
    public static boolean isDiskFull(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && ("53100".equals(sql.getSQLState())
                    || sql.getClass().getName().equals("org.sqlite.SQLiteException") && (sql.getErrorCode() & 0xff) == 13)) {
                return true;
            }
        }
        return false;
    }

    /** A BIGINT column that may be NULL. */
    public static Long nullableLong(java.sql.ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    /** An INT column that may be NULL. */
    public static Integer nullableInt(java.sql.ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }
}

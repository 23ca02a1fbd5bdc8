package io.drover.core.plans;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result an agent sends for a plan, in the specification's format: {@code body} is the Body's return value, or
 * on error {@code {"Message": …, "AdditionalInfo": …}}.
 */
public record ExecutionResult(String id, String sourceId, int errorCode, Object body, Instant time) {
    public static final String ACTION = "Execute:Result";

    public static ExecutionResult success(String id, String sourceId, Object value, Instant time) {
        return new ExecutionResult(id, sourceId, PlanErrorCode.OK, value, time);
    }

    public static ExecutionResult failure(String id, String sourceId, PlanException error, Instant time) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("Message", error.getMessage());
        body.put("AdditionalInfo", error.additionalInfo());
        return new ExecutionResult(id, sourceId, error.code(), body, time);
    }

    public boolean succeeded() {
        return errorCode == PlanErrorCode.OK;
    }

    /** The document sent to the plan's originator. */
    public Map<String, Object> toWire() {
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("FormatVersion", "2.0.0");
        wire.put("ID", id);
        wire.put("SourceID", sourceId);
        wire.put("Action", ACTION);
        wire.put("ErrorCode", errorCode);
        wire.put("Body", body);
        wire.put("Time", time.truncatedTo(ChronoUnit.MILLIS).toString());
        return wire;
    }

    /** The message of an error result (empty for a success). */
    public String message() {
        return body instanceof Map<?, ?> map && !succeeded() && map.get("Message") != null ? String.valueOf(map.get("Message")) : "";
    }

    /**
     * The result in vCurrent form, for a plan that arrived as vCurrent: an exception at the root for codes 2–99, an
     * exception inside for 1 and 100+, a plain result otherwise.
     */
    public Map<String, Object> toVCurrent() {
        Map<String, Object> outer = new LinkedHashMap<>();
        if (errorCode > PlanErrorCode.GENERIC && errorCode < PlanErrorCode.USER_BASE) {
            outer.put("IsException", true);
            outer.put("Result", body);
            return outer;
        }
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("IsException", errorCode != PlanErrorCode.OK);
        inner.put("Result", body);
        outer.put("IsException", false);
        outer.put("Result", inner);
        return outer;
    }
}

package io.drover.core.plans;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
     * The result in vCurrent form, for a plan that arrived as vCurrent, in the shape the Windows agent sent and Murano's
     * engine reads ({@code _process_v1_result}): a plan that did not run (codes 2–99) is an exception at the root
     * whose Result is the engine's exception list {@code [type, message, command, details]}; otherwise Result is a list
     * with one {@code {IsException, Result}} entry per command, the engine taking the last: on success each command's
     * return value, on failure (1 and 100+) the failing command's exception list. The converted Body raises on the
     * first failing command, so a failure's list holds that one entry, not the results of the commands before it.
     */
    public Map<String, Object> toVCurrent() {
        Map<String, Object> outer = new LinkedHashMap<>();
        if (errorCode > PlanErrorCode.GENERIC && errorCode < PlanErrorCode.USER_BASE) {
            outer.put("IsException", true);
            outer.put("Result", exceptionInfo());
            return outer;
        }
        List<Object> commands = new ArrayList<>();
        if (succeeded()) {
            for (Object value : body instanceof List<?> list ? list : java.util.Collections.singletonList(body)) {
                commands.add(command(false, value));
            }
        } else {
            commands.add(command(true, exceptionInfo()));
        }
        outer.put("IsException", false);
        outer.put("Result", commands);
        return outer;
    }

    private static Map<String, Object> command(boolean exception, Object result) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("IsException", exception);
        entry.put("Result", result);
        return entry;
    }

    /**
     * The list the engine's {@code _get_exception_info} reads: type (the Python exception's, else
     * {@code ExecutionPlanError}), message, command (unknown here: null), details (the error code and AdditionalInfo).
     */
    private List<Object> exceptionInfo() {
        Object info = body instanceof Map<?, ?> map ? map.get("AdditionalInfo") : null;
        Object type = info instanceof Map<?, ?> map && map.get("type") instanceof String name ? name : "ExecutionPlanError";
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("ErrorCode", errorCode);
        details.put("AdditionalInfo", info);
        return java.util.Arrays.asList(type, message(), null, details);
    }
}

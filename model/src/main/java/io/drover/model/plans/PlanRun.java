package io.drover.model.plans;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * An execution plan as the server keeps it: who ran it where, its per-host results (in the unified agent's result
 * format, {@code document}) and the log messages the hosts sent. {@code status} is RUNNING until every host answered,
 * then SUCCEEDED when every ErrorCode is 0, else FAILED.
 */
public record PlanRun(String id, String name, String jid, String tgt, String tgtType, String createdBy,
                      OffsetDateTime createdAt, PlanStatus status, List<String> minions, List<String> missing,
                      Map<String, HostResult> results, List<LogLine> logs,
                      @JsonInclude(content = JsonInclude.Include.ALWAYS) Map<String, Object> plan) {

    /**
     * One host's result: the ErrorCode, the error message (empty on success) and the result document, null values
     * kept ({@code "Body": {"seen": null}}).
     */
    public record HostResult(int errorCode, String message, @JsonInclude(content = JsonInclude.Include.ALWAYS) Object document,
                             OffsetDateTime at) {
    }

    /** A log message a host sent for the plan ({@code api.log*} with notify). */
    public record LogLine(long seq, String agentId, String level, String body, OffsetDateTime time) {
    }
}

package io.drover.model.diagnosis;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A stored Operation, OperationSet or Trigger: its document as applied, whether it is one of the built-in library
 * (replaced by a user's own document of the same name, which is then kept), an OperationSet's paths (node ids from
 * node 0 exclusive, in the order they are tried) and a cron trigger's last scheduled time.
 */
public record DiagnosisObject(String kind, String name, boolean builtin, KubeDocument document, List<List<Integer>> paths,
                              OffsetDateTime lastScheduleTime, OffsetDateTime updatedAt) {
    public record Summary(String kind, String name, boolean builtin, String detail, OffsetDateTime updatedAt) {
    }

    public static Map<String, String> kinds() {
        return Map.of("operations", "Operation", "operation-sets", "OperationSet", "triggers", "Trigger");
    }
}

package io.drover.model.diagnosis;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * One diagnosis of one host, as KubeDiag's Diagnosis status: {@code phase} (Pending, Running, Succeeded, Failed),
 * the checkpoint, the failed paths and the succeeded path (node ids), every operation result, the conditions, and
 * each node run in order with its own results ({@code nodes}) so a graph can show where it went and what each gave. {@code paths} are the operation set's.
 */
public record DiagnosisInfo(long id, String name, String operationSet, long hostId, String hostName, long bizId, String agentId,
                            String source, String trigger, Map<String, String> parameters, DiagnosisPhase phase, Checkpoint checkpoint,
                            List<List<Integer>> paths, List<List<Integer>> failedPaths, List<Integer> succeededPath,
                            Map<String, String> operationResults, List<Condition> conditions, List<NodeRun> nodes,
                            String createdBy, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
    public record Checkpoint(int pathIndex, int nodeIndex) {
    }

    public record Condition(String type, String reason, String message, OffsetDateTime time) {
    }

    /**
     * One operation run: on which path, which node and operation, whether it succeeded, its error, when it ended, and
     * the results it gave (kept per run: two nodes writing one key each keep theirs; {@code operationResults} merges
     * them, the later one winning).
     */
    public record NodeRun(int pathIndex, int node, String operation, boolean succeeded, String error, OffsetDateTime time,
                          Map<String, String> results) {
        public NodeRun {
            results = results == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(results));
        }
    }

    /** A line of a diagnosis list. */
    public record Summary(long id, String name, String operationSet, String hostName, DiagnosisPhase phase, String source,
                          OffsetDateTime createdAt, OffsetDateTime updatedAt) {
    }
}

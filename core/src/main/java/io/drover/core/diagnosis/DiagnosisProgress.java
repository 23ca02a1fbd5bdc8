package io.drover.core.diagnosis;

import io.drover.model.diagnosis.DiagnosisPhase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Where a diagnosis is on its operation set's paths, and how one operation's outcome moves it, as KubeDiag's executor
 * does (without its bug): paths are tried in order, one node at a time; a node's results join the data; a failed
 * node records its whole path as failed and the next path starts at its first node; results of failed paths are kept;
 * the diagnosis succeeds when one path succeeds and fails when every path failed. Pure: the runner persists each state.
 */
public final class DiagnosisProgress {
    /** Why a diagnosis is where it is, as KubeDiag's conditions. */
    public record Condition(String type, String reason, String message) {
    }

    /**
     * {@code pathIndex}/{@code nodeIndex} are the checkpoint; paths are node ids without the start node 0.
     */
    public record State(DiagnosisPhase phase, int pathIndex, int nodeIndex, List<List<Integer>> failedPaths, List<Integer> succeededPath,
                        Map<String, String> results, List<Condition> conditions) {
        public State {
            failedPaths = List.copyOf(failedPaths);
            succeededPath = List.copyOf(succeededPath);
            results = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(results));
            conditions = List.copyOf(conditions);
        }

        public boolean finished() {
            return phase.ended();
        }
    }

    private DiagnosisProgress() {
    }

    public static State start() {
        return new State(DiagnosisPhase.RUNNING, 0, 0, List.of(), List.of(), Map.of(), List.of(
                new Condition("Accepted", "Accepted", "Diagnosis is accepted")));
    }

    /** The node to run next, or empty when the diagnosis is over. */
    public static OptionalInt next(List<List<Integer>> paths, State state) {
        if (state.finished() || state.pathIndex() >= paths.size()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(paths.get(state.pathIndex()).get(state.nodeIndex()));
    }

    /** An operation's data: the diagnosis's parameters, overlaid with the results so far, overlaid with the context keys. */
    public static Map<String, String> data(Map<String, String> parameters, State state, Map<String, String> context) {
        Map<String, String> data = new LinkedHashMap<>(parameters);
        data.putAll(state.results());
        data.putAll(context);
        return data;
    }

    /** The state after the current node succeeded or failed with these results. */
    public static State after(List<List<Integer>> paths, State state, boolean succeeded, Map<String, String> results, String error) {
        List<Integer> path = paths.get(state.pathIndex());
        Map<String, String> merged = new LinkedHashMap<>(state.results());
        merged.putAll(results);
        List<Condition> conditions = new ArrayList<>(state.conditions());
        if (succeeded) {
            List<Integer> done = new ArrayList<>(state.succeededPath());
            done.add(path.get(state.nodeIndex()));
            if (state.nodeIndex() + 1 == path.size()) {
                conditions.add(new Condition("Complete", "Succeeded", "Diagnosis is completed: path " + (state.pathIndex() + 1)
                        + " of " + paths.size() + " succeeded"));
                return new State(DiagnosisPhase.SUCCEEDED, state.pathIndex(), state.nodeIndex(), state.failedPaths(), done, merged, conditions);
            }
            return new State(DiagnosisPhase.RUNNING, state.pathIndex(), state.nodeIndex() + 1, state.failedPaths(), done, merged, conditions);
        }
        List<List<Integer>> failed = new ArrayList<>(state.failedPaths());
        failed.add(path);
        conditions.add(new Condition("PathFailed", "OperationFailed", "path " + (state.pathIndex() + 1) + " failed at node "
                + path.get(state.nodeIndex()) + (error == null || error.isBlank() ? "" : ": " + error)));
        if (state.pathIndex() + 1 == paths.size()) {
            conditions.add(new Condition("Complete", "Failed", "every path failed"));
            return new State(DiagnosisPhase.FAILED, state.pathIndex(), state.nodeIndex(), failed, List.of(), merged, conditions);
        }
        return new State(DiagnosisPhase.RUNNING, state.pathIndex() + 1, 0, failed, List.of(), merged, conditions);
    }

    /** The diagnosis ends failed for a reason outside its operations (the agent offline, the operation set changed…). */
    public static State abort(State state, String reason, String message) {
        List<Condition> conditions = new ArrayList<>(state.conditions());
        conditions.add(new Condition("Complete", reason, message));
        return new State(DiagnosisPhase.FAILED, state.pathIndex(), state.nodeIndex(), state.failedPaths(), state.succeededPath(),
                state.results(), conditions);
    }

    /** The diagnosis ends cancelled (by a user): no further node runs; what it found so far is kept. */
    public static State cancel(State state, String message) {
        if (state.finished()) {
            throw new IllegalStateException("a diagnosis that is " + state.phase() + " cannot be cancelled");
        }
        List<Condition> conditions = new ArrayList<>(state.conditions());
        conditions.add(new Condition("Complete", "Cancelled", message));
        return new State(DiagnosisPhase.CANCELLED, state.pathIndex(), state.nodeIndex(), state.failedPaths(), state.succeededPath(),
                state.results(), conditions);
    }
}

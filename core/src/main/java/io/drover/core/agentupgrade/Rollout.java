package io.drover.core.agentupgrade;

import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A fleet upgrade's course, without I/O: the hosts cut into batches of {@code batchSize} in the order given, each
 * host's {@link UpgradeHostState}, and when to stop. The rule: after a batch has ended, the rollout stops when
 * {@code failed / attempted > maxFailureRatio}, where attempted counts the hosts that succeeded or failed so far
 * (a skipped host, already at the version, is neither); the hosts of the later batches are then
 * {@link UpgradeHostState#NOT_STARTED}. After the last batch there is nothing to stop: failures there make it
 * {@link RolloutStatus#FAILED}, as any failure in a rollout that ran every batch does. A ratio of 0 stops at the first failure, a ratio of 1 never stops. A batch that has
 * started always runs to its end. The hosts of a batch may record their states from threads of their own.
 */
public final class Rollout {
    public static final int MAX_BATCH_SIZE = 1000;

    private final List<List<String>> batches;
    private final double maxFailureRatio;
    private final Map<String, UpgradeHostState> states = new LinkedHashMap<>();
    private final Map<String, Integer> batchOf = new java.util.HashMap<>();
    private int next;
    private boolean stopped;
    private boolean cancelled;

    /** {@code hosts}: distinct agent ids, in the order they are upgraded. */
    public Rollout(List<String> hosts, int batchSize, double maxFailureRatio) {
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batch size " + batchSize + " is not 1 to " + MAX_BATCH_SIZE);
        }
        if (!(maxFailureRatio >= 0 && maxFailureRatio <= 1)) {
            throw new IllegalArgumentException("failure ratio " + maxFailureRatio + " is not 0 to 1");
        }
        this.maxFailureRatio = maxFailureRatio;
        for (String host : hosts) {
            if (states.put(host, UpgradeHostState.PENDING) != null) {
                throw new IllegalArgumentException("host " + host + " is named twice");
            }
        }
        this.batches = cut(hosts, batchSize);
        for (int b = 0; b < batches.size(); b++) {
            for (String host : batches.get(b)) {
                batchOf.put(host, b);
            }
        }
    }

    /** {@code hosts} in consecutive batches of {@code batchSize} (the last one may be smaller). */
    public static List<List<String>> cut(List<String> hosts, int batchSize) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i += batchSize) {
            out.add(List.copyOf(hosts.subList(i, Math.min(hosts.size(), i + batchSize))));
        }
        return out;
    }

    /** Whether {@code failed} failures out of {@code attempted} hosts pass the ratio (the rule above). */
    public static boolean passes(int failed, int attempted, double maxFailureRatio) {
        return attempted > 0 && (double) failed / attempted > maxFailureRatio;
    }

    /**
     * The next batch to run, or empty when every batch ran or the rollout stopped. Refused while a host of the
     * batch before has not ended; decides the stop before answering.
     */
    public synchronized Optional<List<String>> nextBatch() {
        if (next > 0 && batches.get(next - 1).stream().anyMatch(h -> !states.get(h).ended())) {
            throw new IllegalStateException("batch " + next + " has hosts that have not ended");
        }
        if (!stopped && !cancelled && next > 0 && next < batches.size() && passes(count(UpgradeHostState.FAILED), attempted(), maxFailureRatio)) {
            stopped = true;
            for (int b = next; b < batches.size(); b++) {
                batches.get(b).forEach(h -> states.put(h, UpgradeHostState.NOT_STARTED));
            }
        }
        if (stopped || cancelled || next >= batches.size()) {
            return Optional.empty();
        }
        return Optional.of(batches.get(next++));
    }

    /**
     * Starts no further batch: the hosts of the batches not started become {@link UpgradeHostState#NOT_STARTED}, and the
     * rollout is {@link RolloutStatus#CANCELLED} once the batch that runs has ended. Nothing happens once every batch
     * has started or the rollout stopped.
     */
    public synchronized void cancel() {
        if (stopped || cancelled || next >= batches.size()) {
            return;
        }
        cancelled = true;
        for (int b = next; b < batches.size(); b++) {
            batches.get(b).forEach(h -> states.put(h, UpgradeHostState.NOT_STARTED));
        }
    }

    /** Records a host's new state: only forward (PENDING → SKIPPED/HANDED_OVER/FAILED, HANDED_OVER → SUCCEEDED/FAILED). */
    public synchronized void record(String host, UpgradeHostState state) {
        UpgradeHostState now = states.get(host);
        if (now == null) {
            throw new IllegalArgumentException("host " + host + " is not in this rollout");
        }
        boolean allowed = switch (now) {
            case PENDING -> state == UpgradeHostState.SKIPPED || state == UpgradeHostState.HANDED_OVER || state == UpgradeHostState.FAILED;
            case HANDED_OVER -> state == UpgradeHostState.SUCCEEDED || state == UpgradeHostState.FAILED;
            default -> false;
        };
        if (!allowed || batchOf.get(host) != next - 1) {
            throw new IllegalStateException("host " + host + " cannot go from " + now + " to " + state
                    + (allowed ? " outside its batch" : ""));
        }
        states.put(host, state);
    }

    public synchronized UpgradeHostState state(String host) {
        return states.get(host);
    }

    /** Every host's state, in the rollout's order. */
    public synchronized Map<String, UpgradeHostState> states() {
        return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(states));
    }

    public int batchCount() {
        return batches.size();
    }

    public synchronized int count(UpgradeHostState state) {
        return (int) states.values().stream().filter(s -> s == state).count();
    }

    /** Hosts that succeeded or failed. */
    public synchronized int attempted() {
        return count(UpgradeHostState.SUCCEEDED) + count(UpgradeHostState.FAILED);
    }

    public synchronized boolean stopped() {
        return stopped;
    }

    /** The rollout's status: running until every batch ran (or it stopped, or was cancelled) and every host ended. */
    public synchronized RolloutStatus status() {
        boolean over = stopped || ((cancelled || next >= batches.size()) && states.values().stream().allMatch(UpgradeHostState::ended));
        if (!over) {
            return RolloutStatus.RUNNING;
        }
        return cancelled ? RolloutStatus.CANCELLED : stopped ? RolloutStatus.STOPPED : count(UpgradeHostState.FAILED) > 0 ? RolloutStatus.FAILED : RolloutStatus.SUCCEEDED;
    }
}

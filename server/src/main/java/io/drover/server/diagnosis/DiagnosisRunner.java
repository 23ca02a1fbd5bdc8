package io.drover.server.diagnosis;

import io.drover.core.diagnosis.DiagnosisProgress;
import io.drover.core.diagnosis.Operation;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.server.events.EventStore;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.jdbi.v3.core.Jdbi;
import io.drover.server.cluster.WorkLeaseStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs diagnoses, one operation at a time, as KubeDiag's executor: the node on the checkpoint runs on the host's
 * agent with the data map, its outcome moves the diagnosis ({@link DiagnosisProgress}) and the new checkpoint is
 * stored before the next node starts, so a server that stops resumes at the node it was on. The job of the node's
 * agent call is recorded before the agent gets it, so the resumed node asks for that job's answer (the agent runs a
 * job id once) instead of running the node again.
 * An agent that is offline or does not answer is tried again with a doubling backoff, then the diagnosis fails with
 * the condition AgentUnavailable. At most {@code concurrency} operations run at once.
 * A cancel ({@link Diagnoses#cancel}, from any server of the cluster) ends the diagnosis in the database first; every
 * write of the runner checks that it has not ended, so a cancelled diagnosis records no further outcome and sends no
 * further call, and its runner stops when the killed operation answers.
 */
public final class DiagnosisRunner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DiagnosisRunner.class);

    /** The backoff: first wait, and how many tries after the first before giving up. */
    public record Retry(Duration firstWait, int retries) {
    }

    private final Jdbi jdbi;
    private final WorkLeaseStore leases;
    private final DiagnosisStore repository;
    private final DiagnosisCatalog catalog;
    private final OperationDispatcher executor;
    private final EventStore events;
    private final LongFunction<String> agentOfHost;
    private final Predicate<String> online;
    private final Clock clock;
    private final Retry retry;
    private final Semaphore slots;
    private final ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("diagnosis-", 0).factory());
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("diagnosis-retry").factory());
    private final Set<Long> active = ConcurrentHashMap.newKeySet();
    private final Map<Long, Integer> attempts = new ConcurrentHashMap<>();
    private volatile boolean closed;

    DiagnosisRunner(Jdbi jdbi, DiagnosisStore repository, DiagnosisCatalog catalog, OperationDispatcher executor, EventStore events,
                    LongFunction<String> agentOfHost, Predicate<String> online, WorkLeaseStore leases, Clock clock, Retry retry,
                    int concurrency) {
        this.jdbi = jdbi;
        this.leases = leases;
        this.repository = repository;
        this.catalog = catalog;
        this.executor = executor;
        this.events = events;
        this.agentOfHost = agentOfHost;
        this.online = online;
        this.clock = clock;
        this.retry = retry;
        this.slots = new Semaphore(Math.max(1, concurrency));
    }

    /** Resumes every diagnosis a stop left unfinished; returns how many. */
    /**
     * Resumes, from their checkpoints, the diagnoses a server that stopped left unfinished (this one before a restart,
     * or another of the cluster whose lease ran out).
     */
    int resumeAbandoned(boolean atStart) {
        List<Long> ids = leases.claimAbandoned(WorkLeaseStore.Work.DIAGNOSIS, atStart);
        ids.forEach(this::submit);
        return ids.size();
    }

    /** Runs a diagnosis to its end in the background (nothing happens if it runs already). */
    void submit(long id) {
        if (closed || !active.add(id)) {
            return;
        }
        leases.own(WorkLeaseStore.Work.DIAGNOSIS, id);
        try {
            workers.execute(() -> {
                long retryInMillis = -1;
                try {
                    retryInMillis = drive(id);
                } catch (RuntimeException e) {
                    log.warn("diagnosis {} stopped on an error; it resumes at the next start", id, e);
                } finally {
                    active.remove(id);
                }
                // Scheduled only once this run is over, so that the retry cannot find it still active and be lost.
                if (retryInMillis >= 0 && !closed) {
                    try {
                        timer.schedule(() -> submit(id), retryInMillis, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException e) {
                        // stopping
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            active.remove(id);
        }
    }

    /** Runs nodes until the diagnosis ends or waits; the wait before the next try (ms), or -1 when there is none. */
    private long drive(long id) {
        while (!closed) {
            DiagnosisStore.Row row = jdbi.withHandle(h -> repository.find(h, id)).orElse(null);
            if (row == null || row.progress().state().finished()) {
                attempts.remove(id);
                return -1;
            }
            long next = step(row);
            if (next != CONTINUE) {
                return next;
            }
        }
        return -1;
    }

    private static final long CONTINUE = -2;

    /**
     * Runs the node on the checkpoint: {@link #CONTINUE} when the next node may run, the wait in ms before trying
     * again when the agent could not be reached, or -1 when the runner stops or the diagnosis ended under it (cancelled).
     */
    private long step(DiagnosisStore.Row row) {
        DiagnosisProgress.State state = row.progress().state();
        Optional<DiagnosisCatalog.RunnableSet> set = catalog.operationSet(row.operationSet());
        if (set.isEmpty()) {
            return abort(row, "OperationSetNotFound", "operation set " + row.operationSet() + " does not exist");
        }
        if (!set.get().hash().equals(row.setHash())) {
            return abort(row, "OperationSetChanged", "operation set " + row.operationSet() + " changed after the diagnosis started");
        }
        List<List<Integer>> paths = set.get().paths();
        OptionalInt next = DiagnosisProgress.next(paths, state);
        if (next.isEmpty()) {
            return abort(row, "OperationSetNotReady", "operation set " + row.operationSet() + " has no path");
        }
        String name = set.get().nodes().get(next.getAsInt()).operation();
        Optional<Operation> operation;
        try {
            operation = catalog.operation(name);
        } catch (io.drover.core.diagnosis.DocumentException e) {
            // stored before a rule that now refuses it (an httpServer without an address)
            return abort(row, "OperationInvalid", "operation " + name + " (node " + next.getAsInt() + "): " + e.getMessage());
        }
        if (operation.isEmpty()) {
            return abort(row, "OperationNotFound", "operation " + name + " (node " + next.getAsInt() + ") does not exist");
        }
        String agent = agentOfHost.apply(row.hostId());
        OperationDispatcher.Result result;
        if (agent == null) {
            result = new OperationDispatcher.Result.Unreachable("host " + row.hostName() + " has no agent");
        } else if (!online.test(agent)) {
            result = new OperationDispatcher.Result.Unreachable("agent " + agent + " of host " + row.hostName() + " is offline");
        } else {
            if (!slots.tryAcquire()) {
                try {
                    slots.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
            }
            try {
                int node = next.getAsInt();
                String sentJid = jdbi.withHandle(h -> repository.sent(h, row.id())).filter(sent -> sent.node() == node)
                        .map(DiagnosisStore.SentCall::jid).orElse(null);
                result = executor.run(agent, row.bizId(), row.hostId(), operation.get(), DiagnosisProgress.data(row.parameters(), state, context(row)),
                        new OperationDispatcher.Sending(sentJid, jid -> markSent(row.id(), node, jid)));
            } finally {
                slots.release();
            }
        }
        if (closed) {
            return -1; // the outcome of a node cut short by a stop is not recorded: the node runs again at the next start
        }
        if (result instanceof OperationDispatcher.Result.Unreachable unreachable) {
            if (jdbi.withHandle(h -> repository.ended(h, row.id()))) {
                attempts.remove(row.id());
                return -1; // cancelled (or deleted) while its call was going out: nothing is retried
            }
            int attempt = attempts.merge(row.id(), 1, Integer::sum);
            if (attempt > retry.retries()) {
                attempts.remove(row.id());
                return abort(row, "AgentUnavailable", unreachable.reason() + "; gave up after " + attempt + " attempts");
            }
            long wait = retry.firstWait().toMillis() << Math.min(attempt - 1, 16);
            log.info("diagnosis {}: {}; trying again in {} ms (attempt {} of {})", row.id(), unreachable.reason(), wait, attempt + 1,
                    retry.retries() + 1);
            return wait;
        }
        attempts.remove(row.id());
        OperationDispatcher.Result.Done done = (OperationDispatcher.Result.Done) result;
        DiagnosisProgress.State after = DiagnosisProgress.after(paths, state, done.succeeded(), done.results(), done.error());
        List<DiagnosisInfo.NodeRun> nodes = new ArrayList<>(row.progress().nodes());
        nodes.add(new DiagnosisInfo.NodeRun(state.pathIndex(), next.getAsInt(), name, done.succeeded(), done.error(), now(), done.results()));
        return save(row, after, nodes, Map.of("node", next.getAsInt(), "operation", name, "succeeded", done.succeeded()));
    }

    private long abort(DiagnosisStore.Row row, String reason, String message) {
        return save(row, DiagnosisProgress.abort(row.progress().state(), reason, message), row.progress().nodes(), Map.of("reason", reason));
    }

    /** Thrown from the call's sending hook to keep the call from going out: the diagnosis ended meanwhile. */
    private static final class Ended extends RuntimeException {
        Ended(long id) {
            super("diagnosis " + id + " has ended (cancelled): its next call is not sent", null, false, false);
        }
    }

    private void markSent(long id, int node, String jid) {
        if (!jdbi.withHandle(h -> repository.markSent(h, id, node, jid))) {
            throw new Ended(id);
        }
    }

    /**
     * Stores the new checkpoint: {@link #CONTINUE}, or -1 when the diagnosis ended meanwhile (a cancel, from any server
     * of the cluster, wins: the outcome is not recorded and no further node runs).
     */
    private long save(DiagnosisStore.Row row, DiagnosisProgress.State after, List<DiagnosisInfo.NodeRun> nodes, Map<String, Object> detail) {
        OffsetDateTime now = now();
        List<OffsetDateTime> times = new ArrayList<>(row.progress().conditionTimes());
        while (times.size() < after.conditions().size()) {
            times.add(now);
        }
        DiagnosisStore.Progress progress = new DiagnosisStore.Progress(after, times, nodes);
        Map<String, Object> data = new LinkedHashMap<>(detail);
        data.put("id", row.id());
        data.put("name", row.name());
        data.put("host", row.hostName());
        data.put("bk_biz_id", row.bizId());
        data.put("phase", after.phase().name());
        String tag = "drover/diagnosis/" + row.id() + "/" + (after.finished() ? after.phase().name().toLowerCase(Locale.ROOT) : "node");
        boolean saved = jdbi.inTransaction(h -> {
            if (!repository.saveProgress(h, row.id(), progress, now)) {
                return false;
            }
            events.append(h, tag, data);
            return true;
        });
        if (!saved) {
            log.info("diagnosis {} ended while its node ran (cancelled): the node's outcome is not recorded", row.id());
            attempts.remove(row.id());
            return -1;
        }
        events.publishPending();
        return CONTINUE;
    }

    /** The keys every operation gets, as KubeDiag's context keys (diagnosis and node) and Drover's (host, business). */
    static Map<String, String> context(DiagnosisStore.Row row) {
        Map<String, String> context = new LinkedHashMap<>();
        context.put("diagnosis.name", row.name());
        context.put("diagnosis.id", String.valueOf(row.id()));
        context.put("diagnosis.uid", String.valueOf(row.id()));
        context.put("node", row.hostName() == null ? String.valueOf(row.hostId()) : row.hostName());
        context.put("host.name", row.hostName() == null ? "" : row.hostName());
        context.put("host.id", String.valueOf(row.hostId()));
        context.put("business", String.valueOf(row.bizId()));
        return context;
    }

    private OffsetDateTime now() {
        return OffsetDateTime.now(clock);
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        workers.shutdownNow();
        try {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.drover.server.diagnosis;

import io.drover.core.diagnosis.DiagnosisProgress;
import io.drover.core.diagnosis.DocumentException;
import io.drover.core.diagnosis.TriggerDocuments;
import io.drover.model.api.Page;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.diagnosis.DiagnosesStarted;
import io.drover.model.diagnosis.DiagnosisInfo;
import io.drover.model.diagnosis.DiagnosisPhase;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.model.inventory.Host;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.events.EventStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.LongFunction;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Diagnoses: started by a request (a KubeDiag Diagnosis document naming hosts), an alert, a Drover event or a cron
 * trigger; one diagnosis per host, run by the {@link DiagnosisRunner}; read with their status as KubeDiag shows it.
 */
public final class Diagnoses {
    /** The hosts under a business, set or module that a caller may see (the inventory's listing). */
    public interface HostsUnder {
        Page<Host> find(Principal principal, Long bizId, Long setId, Long moduleId, int limit);
    }

    static final int MAX_HOSTS = 10_000;

    /** A diagnosis to start on one host, from whatever source. */
    record Request(String name, String operationSet, Host host, Map<String, String> parameters, String source, String trigger) {
    }

    private final Jdbi jdbi;
    private final DiagnosisStore repository;
    private final DiagnosisCatalog catalog;
    private final DiagnosisRunner runner;
    private final EventStore events;
    private final Function<String, List<Host>> findHosts;
    private final HostsUnder hostsUnder;
    private final LongFunction<String> agentOfHost;
    private final OperationKills kills;
    private final Clock clock;

    Diagnoses(Jdbi jdbi, DiagnosisStore repository, DiagnosisCatalog catalog, DiagnosisRunner runner, EventStore events,
              Function<String, List<Host>> findHosts, HostsUnder hostsUnder, LongFunction<String> agentOfHost, OperationKills kills,
              Clock clock) {
        this.jdbi = jdbi;
        this.repository = repository;
        this.catalog = catalog;
        this.runner = runner;
        this.events = events;
        this.findHosts = findHosts;
        this.hostsUnder = hostsUnder;
        this.agentOfHost = agentOfHost;
        this.kills = kills;
        this.clock = clock;
    }

    /** Starts the diagnosis a document asks for, once per host it names; every host must be in the caller's businesses. */
    public DiagnosesStarted create(Principal principal, KubeDocument document) {
        TriggerDocuments.Diagnosis diagnosis;
        try {
            diagnosis = TriggerDocuments.diagnosis(DiagnosisCatalog.tree(new KubeDocument(document.apiVersion(),
                    document.kind() == null ? "Diagnosis" : document.kind(), document.metadata(), document.spec())));
        } catch (DocumentException e) {
            throw DomainException.invalid(e.problems().stream().map(p -> new FieldError(p.field(), p.message())).toList());
        }
        if (catalog.operationSet(diagnosis.operationSet()).isEmpty()) {
            throw DomainException.invalid("spec.operationSet", "'" + diagnosis.operationSet() + "' is not an OperationSet");
        }
        List<Host> hosts = new ArrayList<>();
        for (String reference : diagnosis.hosts()) {
            hosts.add(host(principal, reference).orElseThrow(problem -> DomainException.invalid("spec.hosts", problem)));
        }
        if (!diagnosis.selector().isEmpty()) {
            Page<Host> selected = hostsUnder.find(principal, diagnosis.selector().get("bk_biz_id"), diagnosis.selector().get("bk_set_id"),
                    diagnosis.selector().get("bk_module_id"), MAX_HOSTS + 1);
            if (selected.total() > MAX_HOSTS) {
                throw DomainException.invalid("spec.hostSelector", "selects " + selected.total() + " hosts, more than " + MAX_HOSTS
                        + " in one request");
            }
            if (selected.items().isEmpty()) {
                throw DomainException.invalid("spec.hostSelector", "selects no host");
            }
            selected.items().stream().filter(h -> hosts.stream().noneMatch(o -> o.bkHostId().equals(h.bkHostId()))).forEach(hosts::add);
        }
        hosts.forEach(h -> principal.requireBiz(h.bkBizId()));
        List<DiagnosesStarted.StartedDiagnosis> started = new ArrayList<>();
        for (Host host : hosts) {
            String name = hosts.size() == 1 ? diagnosis.name() : diagnosis.name() + "." + hostLabel(host);
            started.add(start(new Request(name, diagnosis.operationSet(), host, diagnosis.parameters(), "api", null), principal.name()));
        }
        return new DiagnosesStarted(started);
    }

    /** A host by id, name or address: the host, or why there is none. */
    Lookup host(String reference) {
        return host(null, reference);
    }

    /**
     * A host by id, name or address among those the principal may see (null: every host): another business's host is
     * as missing, so that neither the answer nor an ambiguity names it or its id.
     */
    Lookup host(Principal principal, String reference) {
        List<Host> found = findHosts.apply(reference).stream()
                .filter(h -> principal == null || principal.mayTouch(h.bkBizId())).toList();
        if (found.isEmpty()) {
            return new Lookup(null, "'" + reference + "' is not a host (a host id, name or inner address)");
        }
        if (found.size() > 1) {
            return new Lookup(null, "'" + reference + "' names " + found.size() + " hosts (ids " + found.stream().map(Host::bkHostId).toList()
                    + "); name one by id");
        }
        return new Lookup(found.get(0), null);
    }

    /** A host found, or the problem. */
    record Lookup(Host host, String problem) {
        <X extends RuntimeException> Host orElseThrow(Function<String, X> error) {
            if (host == null) {
                throw error.apply(problem);
            }
            return host;
        }
    }

    DiagnosesStarted.StartedDiagnosis start(Request request, String actor) {
        return start(request, actor, h -> true).orElseThrow();
    }

    /**
     * Starts a diagnosis if {@code claim} (run first, in the transaction that stores the diagnosis) holds: an alert's
     * fingerprint, a cron trigger's schedule time. Empty when the claim is refused; a start that fails leaves the claim
     * undone, so that the alert's retry (or the next tick) starts it.
     */
    Optional<DiagnosesStarted.StartedDiagnosis> start(Request request, String actor, Predicate<Handle> claim) {
        DiagnosisCatalog.RunnableSet set = catalog.operationSet(request.operationSet())
                .orElseThrow(() -> DomainException.invalid("spec.operationSet", "'" + request.operationSet() + "' is not an OperationSet"));
        OffsetDateTime now = OffsetDateTime.now(clock);
        DiagnosisProgress.State state = DiagnosisProgress.start();
        Host host = request.host();
        DiagnosisStore.Row row = new DiagnosisStore.Row(0, request.name(), set.name(), set.hash(), host.bkHostId(),
                host.bkHostName() == null || host.bkHostName().isBlank() ? host.bkHostInnerip() : host.bkHostName(), host.bkBizId(),
                agentOfHost.apply(host.bkHostId()), request.source(), request.trigger(), request.parameters(),
                new DiagnosisStore.Progress(state, List.of(now), List.of()), actor, now, now);
        long id = jdbi.inTransaction(h -> {
            if (!claim.test(h)) {
                return -1L;
            }
            long created = repository.insert(h, row);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("id", created);
            data.put("name", row.name());
            data.put("operation_set", row.operationSet());
            data.put("host", row.hostName());
            data.put("bk_biz_id", row.bizId());
            data.put("source", row.source());
            events.append(h, "drover/diagnosis/" + created + "/started", data);
            return created;
        });
        if (id < 0) {
            return Optional.empty();
        }
        events.publishPending();
        runner.submit(id);
        return Optional.of(new DiagnosesStarted.StartedDiagnosis(id, row.name(), row.hostId(), row.hostName()));
    }

    /**
     * Cancels an unfinished diagnosis: recorded first (phase Cancelled, so that the server running it, whichever it
     * is, can neither record the node's outcome nor start another node), then the running operation's job is killed
     * on the agent (its process group) and what the kill did is added to the Cancelled condition. Cancelling a
     * cancelled diagnosis answers it as it is; one that succeeded or failed is a conflict.
     */
    public DiagnosisInfo cancel(Principal principal, long id) {
        find(principal, id);
        OffsetDateTime now = OffsetDateTime.now(clock);
        record Claimed(DiagnosisStore.Row row, DiagnosisStore.Progress progress, DiagnosisStore.SentCall sent) {
        }
        Claimed claimed = jdbi.inTransaction(h -> {
            if (!repository.claimCancel(h, id, now)) {
                return null;
            }
            DiagnosisStore.Row row = repository.find(h, id).orElseThrow();
            DiagnosisStore.SentCall sent = repository.sent(h, id).orElse(null);
            String message = "cancelled by " + principal.name() + (sent == null ? "" : " while node " + sent.node() + " ran (job "
                    + sent.jid() + ")");
            DiagnosisStore.Progress progress = ended(row, DiagnosisProgress.cancel(row.progress().state(), message), now);
            repository.saveEnded(h, id, progress, now);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("id", id);
            data.put("name", row.name());
            data.put("host", row.hostName());
            data.put("bk_biz_id", row.bizId());
            data.put("phase", DiagnosisPhase.CANCELLED.name());
            data.put("by", principal.name());
            if (sent != null) {
                data.put("node", sent.node());
                data.put("jid", sent.jid());
            }
            events.append(h, "drover/diagnosis/" + id + "/cancelled", data);
            return new Claimed(row, progress, sent);
        });
        if (claimed == null) {
            DiagnosisStore.Row row = find(principal, id);
            DiagnosisPhase phase = row.progress().state().phase();
            if (phase != DiagnosisPhase.CANCELLED) {
                throw DomainException.conflict("diagnosis_ended", "diagnosis " + id + " has ended (" + phase.wire()
                        + "): there is nothing to cancel");
            }
            return get(principal, id, Duration.ZERO);
        }
        events.publishPending();
        DiagnosisStore.Progress answered = claimed.progress();
        if (claimed.sent() != null) {
            String agent = agentOfHost.apply(claimed.row().hostId());
            String outcome = agent == null ? "host " + claimed.row().hostName() + " has no agent to kill job " + claimed.sent().jid() + " on"
                    : kills.kill(agent, claimed.row().bizId(), claimed.sent().jid());
            List<DiagnosisProgress.Condition> conditions = new ArrayList<>(claimed.progress().state().conditions());
            DiagnosisProgress.Condition last = conditions.removeLast();
            conditions.add(new DiagnosisProgress.Condition(last.type(), last.reason(), last.message() + "; " + outcome));
            DiagnosisProgress.State s = claimed.progress().state();
            DiagnosisStore.Progress progress = new DiagnosisStore.Progress(new DiagnosisProgress.State(s.phase(), s.pathIndex(),
                    s.nodeIndex(), s.failedPaths(), s.succeededPath(), s.results(), conditions), claimed.progress().conditionTimes(),
                    claimed.progress().nodes());
            jdbi.useHandle(h -> repository.saveEnded(h, id, progress, now));
            answered = progress;
        }
        if (jdbi.withHandle(h -> repository.find(h, id)).isEmpty()) {
            // Deleted (or pruned) once it was Cancelled, while the kill went on: answered as this cancel left it.
            DiagnosisStore.Row r = claimed.row();
            return info(new DiagnosisStore.Row(r.id(), r.name(), r.operationSet(), r.setHash(), r.hostId(), r.hostName(), r.bizId(),
                    r.agentId(), r.source(), r.trigger(), r.parameters(), answered, r.createdBy(), r.createdAt(), now),
                    catalog.operationSet(r.operationSet()).map(DiagnosisCatalog.RunnableSet::paths).orElse(List.of()));
        }
        return get(principal, id, Duration.ZERO);
    }

    /** The stored progress with a new state, its new conditions dated {@code now}. */
    private static DiagnosisStore.Progress ended(DiagnosisStore.Row row, DiagnosisProgress.State after, OffsetDateTime now) {
        List<OffsetDateTime> times = new ArrayList<>(row.progress().conditionTimes());
        while (times.size() < after.conditions().size()) {
            times.add(now);
        }
        return new DiagnosisStore.Progress(after, times, row.progress().nodes());
    }

    /** Deletes a diagnosis that has ended; an unfinished one is a conflict (cancel it first). */
    public void delete(Principal principal, long id) {
        DiagnosisStore.Row row = find(principal, id);
        boolean deleted = jdbi.inTransaction(h -> {
            if (!repository.deleteEnded(h, id)) {
                return false;
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("id", id);
            data.put("name", row.name());
            data.put("host", row.hostName());
            data.put("bk_biz_id", row.bizId());
            data.put("by", principal.name());
            events.append(h, "drover/diagnosis/" + id + "/deleted", data);
            return true;
        });
        if (!deleted) {
            if (jdbi.withHandle(h -> repository.find(h, id)).isEmpty()) {
                throw DomainException.notFound("diagnosis", id);
            }
            throw DomainException.conflict("diagnosis_running", "diagnosis " + id + " has not ended: cancel it first "
                    + "(POST /api/v1/diagnoses/" + id + "/cancel, drover diag cancel " + id + "), then delete it");
        }
        events.publishPending();
    }

    /** How long diagnoses are kept: the newest {@code perHost} ended ones of each host, none older than {@code age}. */
    public record Retention(int perHost, Duration age) {
    }

    /** At most this many diagnoses are deleted by one pass of the retention; the rest wait for the next. */
    static final int MAX_PRUNED_PER_PASS = 10_000;
    private static final int PRUNE_BATCH = 500;

    /**
     * Deletes ended diagnoses past the retention, a batch per transaction and at most {@link #MAX_PRUNED_PER_PASS} in
     * a pass; an unfinished diagnosis is never deleted (each delete checks the phase again). How many it deleted.
     */
    public int prune(Retention retention) {
        return prune(retention, MAX_PRUNED_PER_PASS);
    }

    int prune(Retention retention, int maxPerPass) {
        OffsetDateTime before = OffsetDateTime.now(clock).minus(retention.age());
        int pruned = 0;
        while (pruned < maxPerPass) {
            int limit = Math.min(PRUNE_BATCH, maxPerPass - pruned);
            int deleted = jdbi.inTransaction(h -> repository.deleteEnded(h,
                    repository.pastRetention(h, retention.perHost(), before, limit)));
            pruned += deleted;
            if (deleted < limit) {
                break;
            }
        }
        return pruned;
    }

    public DiagnosisInfo get(Principal principal, long id, Duration wait) {
        Instant deadline = clock.instant().plus(wait);
        DiagnosisStore.Row row = find(principal, id);
        while (!row.progress().state().finished() && clock.instant().isBefore(deadline)) {
            try {
                Thread.sleep(100); // a poll of the stored checkpoint; the runner writes it after every node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            row = find(principal, id);
        }
        List<List<Integer>> paths = catalog.operationSet(row.operationSet()).map(DiagnosisCatalog.RunnableSet::paths).orElse(List.of());
        return info(row, paths);
    }

    private DiagnosisStore.Row find(Principal principal, long id) {
        DiagnosisStore.Row row = jdbi.withHandle(h -> repository.find(h, id)).orElseThrow(() -> DomainException.notFound("diagnosis", id));
        if (!principal.mayTouch(row.bizId())) {
            throw DomainException.notFound("diagnosis", id);
        }
        return row;
    }

    public List<DiagnosisInfo.Summary> list(Principal principal, String phase, int limit) {
        DiagnosisPhase wanted;
        try {
            wanted = phase == null ? null : DiagnosisPhase.parse(phase);
        } catch (IllegalArgumentException e) {
            throw DomainException.invalid("phase", "must be Pending, Running, Succeeded, Failed or Cancelled");
        }
        return jdbi.withHandle(h -> repository.newest(h, principal.allBusinesses() ? null : principal.bizFilter(), wanted, limit)).stream()
                .map(r -> new DiagnosisInfo.Summary(r.id(), r.name(), r.operationSet(), r.hostName(), r.progress().state().phase(),
                        r.source(), r.createdAt(), r.updatedAt())).toList();
    }

    static DiagnosisInfo info(DiagnosisStore.Row row, List<List<Integer>> paths) {
        DiagnosisStore.Stored stored = DiagnosisStore.stored(row.progress());
        DiagnosisProgress.State state = row.progress().state();
        return new DiagnosisInfo(row.id(), row.name(), row.operationSet(), row.hostId(), row.hostName(), row.bizId(), row.agentId(),
                row.source(), row.trigger(), row.parameters(), state.phase(),
                new DiagnosisInfo.Checkpoint(state.pathIndex(), state.nodeIndex()), paths, state.failedPaths(), state.succeededPath(),
                state.results(), stored.conditions(), row.progress().nodes(), row.createdBy(), row.createdAt(), row.updatedAt());
    }

    private static String hostLabel(Host host) {
        String label = host.bkHostName() == null || host.bkHostName().isBlank() ? host.bkHostInnerip() : host.bkHostName();
        return label.toLowerCase(Locale.ROOT).replaceAll("[^-a-z0-9.]+", "-");
    }
}

package io.drover.server.jobs;

import io.drover.core.Hashing;
import io.drover.core.match.MinionView;
import io.drover.core.subscriptions.SecretReferences;
import io.drover.core.match.TargetException;
import io.drover.core.match.TargetExpression;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.agentapi.SaltArgs;
import io.drover.model.jobs.AgentJob;
import io.drover.model.jobs.AgentJobPage;
import io.drover.model.jobs.AgentJobState;
import io.drover.model.jobs.JobCancelled;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobSummary;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventStore;
import io.drover.server.errors.DomainException;
import io.drover.server.keys.KeyStore;
import io.drover.server.store.GroupCommit;
import io.drover.server.store.SecretBox;
import io.drover.server.store.Sql;
import io.drover.transport.envelope.JobPublisher;
import io.drover.transport.envelope.JobReturn;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.master.AgentMode;
import io.drover.transport.master.RequestDeferred;
import io.drover.transport.protocol.Messages;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;

/**
 * Remote execution: resolves the expected minions, stores the job, publishes it, and stores every return (once
 * per minion) with a {@code salt/job/<jid>/ret/<id>} event.
 *
 * <p>A job that carries a secret (a config file rendered with one) is stored, evented and listed with the arguments
 * it is shown with ({@link SecretReferences#REDACTED} in place of the secret); only the published load holds the
 * secret, and a sealed copy is kept to send it again. Its returns are stored with any echo or digest of the secret
 * arguments redacted.
 */
public final class JobService implements AutoCloseable, io.drover.server.agentlink.JobReports {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JobService.class);
    private static final Pattern FUNCTION = Pattern.compile("[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*");

    private final Jdbi jdbi;
    /** New jobs: a deployment starts thousands at once, and their rows share transactions. */
    private final GroupCommit jobStarts;
    private final JobStore repository;
    private final Clock clock;
    private final EventStore events;
    private final KeyStore keys;
    private final java.util.function.Function<String, Map<String, Object>> grains;
    private final Map<String, String> nodegroups;
    private final JobPublisher publisher;
    private final JobIds ids;
    private final BlockingQueue<PendingReturn> returns = new LinkedBlockingQueue<>();
    private final Thread writer;
    /** Jobs still waiting for returns: the minions not heard from, and a future completed when none are left. */
    private final Map<String, LiveJob> live = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * {@code minions}: every minion the job targeted; {@code startedBy}: the principal that started it here (null for
     * a job sent again); {@code hidden}: what its returns must not show (the secret arguments, and their digests), empty
     * for most jobs.
     */
    private record LiveJob(List<String> minions, Principal startedBy, java.util.Set<String> missing,
                           CompletableFuture<Void> done, long startedNanos,
                           java.util.concurrent.atomic.AtomicLong firstReturnNanos, AutoCloseable peerReturns,
                           java.util.Set<String> hidden) {
        int expected() {
            return minions.size();
        }

        void forget() {
            try {
                peerReturns.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A job this server waits on: while any is, it wants the returns other servers of a cluster store. */
    private LiveJob newLiveJob(List<String> minions, Principal startedBy, java.util.Set<String> hidden) {
        return new LiveJob(List.copyOf(minions), startedBy, java.util.concurrent.ConcurrentHashMap.newKeySet(),
                new CompletableFuture<>(), System.nanoTime(), new java.util.concurrent.atomic.AtomicLong(), peerReturns.get(), hidden);
    }

    private final java.util.function.Supplier<AutoCloseable> peerReturns;

    /** Largest return stored, as JSON bytes; a larger one is stored as an error naming the limit. */
    private final int returnMaxBytes;
    /**
     * A diagnosis operation's return is stored whole up to this even under a smaller return-max-bytes: its results,
     * which the next operations read, are a script's output (1 MiB kept) or an HTTP answer (2 MiB), plus their JSON.
     */
    static final int DIAGNOSIS_RETURN_MAX_BYTES = 4 << 20;

    /** The business of each agent's host (agents in none left out): what a business-scoped token may target. */
    private final java.util.function.Function<java.util.Collection<String>, Map<String, Long>> agentBusinesses;
    /** Seals the arguments of jobs that carry a secret. */
    private final SecretBox box;

    /**
     * {@code grains} gives the grains a minion reported (empty when none), {@code agentBusinesses} the business of
     * each agent's host, {@code nodegroups} maps names to compound expressions, {@code publisher} sends a publish load
     * to the given minion ids (null: to every minion, as one broadcast frame); {@code peerReturns} declares, until
     * closed, that a job waits here for returns that other servers of a cluster may store.
     */
    public JobService(Jdbi jdbi, EventStore events, KeyStore keys, java.util.function.Function<String, Map<String, Object>> grains,
                      java.util.function.Function<java.util.Collection<String>, Map<String, Long>> agentBusinesses,
                      Map<String, String> nodegroups, JobPublisher publisher,
                      java.util.function.Supplier<AutoCloseable> peerReturns, int returnMaxBytes, SecretBox box, Clock clock) {
        this.peerReturns = peerReturns;
        this.box = box;
        this.repository = new JobStore(clock);
        this.clock = clock;
        this.ids = new JobIds(clock);
        this.returnMaxBytes = returnMaxBytes;
        this.agentBusinesses = agentBusinesses;
        this.grains = grains;
        this.nodegroups = Map.copyOf(nodegroups);
        this.jdbi = jdbi;
        this.jobStarts = new GroupCommit(jdbi, 200);
        this.stateWrites = new GroupCommit(jdbi, 500);
        this.events = events;
        this.keys = keys;
        this.publisher = publisher;
        this.writer = Thread.ofPlatform().name("job-returns").daemon().start(this::writeReturns);
    }

    /** A typed agent call as a job on the agents a target names (Salt's wire form from {@link io.drover.model.agentapi.AgentCallCodec}). */
    public JobStarted start(Principal principal, String tgt, String tgtType, io.drover.model.agentapi.AgentCall<?> call,
                            int timeoutSeconds) {
        return start(principal, tgt, tgtType, call, timeoutSeconds, started -> { });
    }

    /**
     * As {@link #start(Principal, String, String, io.drover.model.agentapi.AgentCall, int)}; {@code beforePublish}
     * runs once the job is stored and before any agent is sent it, so that what answers to the job (an execution
     * plan's log lines, say) finds what the caller stores there.
     */
    public JobStarted start(Principal principal, String tgt, String tgtType, io.drover.model.agentapi.AgentCall<?> call,
                            int timeoutSeconds, java.util.function.Consumer<JobStarted> beforePublish) {
        return start(principal, tgt, tgtType, call, call, timeoutSeconds, beforePublish);
    }

    /**
     * As {@link #start(Principal, String, String, io.drover.model.agentapi.AgentCall, int, java.util.function.Consumer)}
     * for a call that carries a secret: {@code shown}, the same call with {@link SecretReferences#REDACTED} in place of
     * the secret, is what is stored, evented and answered; only the agents are sent {@code call}.
     */
    public JobStarted start(Principal principal, String tgt, String tgtType,
            io.drover.model.agentapi.AgentCall<?> call, io.drover.model.agentapi.AgentCall<?> shown, int timeoutSeconds,
            java.util.function.Consumer<JobStarted> beforePublish) {
        io.drover.model.agentapi.AgentCallCodec.WireCall wire = io.drover.model.agentapi.AgentCallCodec.encode(call);
        io.drover.model.agentapi.AgentCallCodec.WireCall shownWire = io.drover.model.agentapi.AgentCallCodec.encode(shown);
        if (!wire.fun().equals(shownWire.fun())) {
            throw new IllegalArgumentException("a call is shown as " + shownWire.fun() + " but sent as " + wire.fun());
        }
        return start(principal, new JobRequest(tgt, tgtType, wire.fun(), wire.args().positional(), wire.args().keywords(),
                timeoutSeconds), shownWire.args().toList(), beforePublish);
    }

    public JobStarted start(Principal principal, JobRequest request) {
        return start(principal, request, null, started -> { });
    }

    /**
     * A secret goes out only inside a Drover agent's own encrypted frame: a salt-minion's jobs travel under the session
     * key every accepted minion holds, and an agent that has not signed in since has no mode yet.
     */
    private void refuseSecretsOnTheSharedKey(List<String> minions) {
        List<String> shared = minions.stream().filter(id -> keys.mode(id) != AgentMode.DROVER).toList();
        if (!shared.isEmpty()) {
            throw DomainException.conflict("secret_on_shared_key", "the job carries a secret, which is sent only to Drover agents"
                    + " under their own session key; " + shared.size() + " of the " + minions.size() + " agents it names are"
                    + " salt-minions on the shared key or have not signed in (first: "
                    + String.join(", ", shared.subList(0, Math.min(5, shared.size()))) + ")");
        }
    }

    /**
     * The agents a target names ({@code minions}: accepted ones), those a list names that are not accepted
     * ({@code absent}), every accepted id (null for a list) and the ids a list names (empty for other types).
     */
    public record Targets(List<String> minions, List<String> absent, List<String> accepted, List<String> listed) {
    }

    /**
     * The accepted agents a target names, as a job would run on them, refused (422) when the target is malformed or
     * names none. A token limited to businesses sees only their agents: another business's agents are matched by no
     * target of it (a list naming one finds it absent, as an unknown id), so that neither a refusal nor a count tells
     * it which ids, grains or addresses another business's agents have. {@code tgtType} null: glob.
     */
    public Targets resolve(Principal principal, String tgt, String tgtType) {
        String type = tgtType == null ? "glob" : tgtType;
        List<FieldError> errors = new ArrayList<>();
        if (tgt == null || tgt.isBlank()) {
            errors.add(new FieldError("tgt", "is required"));
        }
        if (!TargetExpression.TYPES.contains(type)) {
            errors.add(new FieldError("tgt_type", "'" + type + "' is not one of " + String.join(", ", TargetExpression.TYPES)));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        TargetExpression target;
        try {
            target = TargetExpression.parse(type, tgt, nodegroups);
        } catch (TargetException e) {
            throw DomainException.invalid("tgt", e.getMessage());
        }
        List<String> listed = type.equals("list") ? TargetExpression.listed(tgt) : List.of();
        List<String> accepted = type.equals("list") ? null : keys.acceptedIds();
        List<String> minions = type.equals("list") ? visible(principal, listed.stream().distinct().filter(id -> keys.acceptedKey(id) != null).toList())
                : expected(target, type, visible(principal, accepted), principal.allBusinesses());
        List<String> absent = listed.stream().filter(id -> !minions.contains(id)).toList();
        if (minions.isEmpty()) {
            throw DomainException.invalid("tgt", "'" + tgt + "' matches no accepted minion");
        }
        // Resolved here, never taken from the caller, among the agents of the principal's businesses only (visible).
        return new Targets(minions, absent, accepted, listed);
    }

    /** The agents among {@code ids} that the principal may see (all of them for a token of every business). */
    private List<String> visible(Principal principal, List<String> ids) {
        if (principal.allBusinesses() || ids.isEmpty()) {
            return ids;
        }
        Map<String, Long> businesses = agentBusinesses.apply(ids);
        return ids.stream().filter(id -> principal.covers(businesses.get(id))).toList();
    }

    /** {@code shownArg}: the arguments as they may be stored and shown (null: as sent). */
    private JobStarted start(Principal principal, JobRequest request, List<Object> shownArg,
                             java.util.function.Consumer<JobStarted> beforePublish) {
        List<FieldError> errors = new ArrayList<>();
        String type = request.tgtType() == null ? "glob" : request.tgtType();
        if (request.tgt() == null || request.tgt().isBlank()) {
            errors.add(new FieldError("tgt", "is required"));
        }
        if (!TargetExpression.TYPES.contains(type)) {
            errors.add(new FieldError("tgt_type", "'" + type + "' is not one of " + String.join(", ", TargetExpression.TYPES)));
        }
        if (request.fun() == null || !FUNCTION.matcher(request.fun()).matches()) {
            errors.add(new FieldError("fun", "must be module.function, e.g. test.ping"));
        }
        if (request.timeout() != null && (request.timeout() < 1 || request.timeout() > 86_400)) {
            errors.add(new FieldError("timeout", "must be 1 to 86400 seconds"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        Targets resolved = resolve(principal, request.tgt(), type);
        List<String> minions = resolved.minions();
        List<String> absent = resolved.absent();
        List<String> accepted = resolved.accepted();
        List<String> listed = resolved.listed();
        List<Object> arg = new SaltArgs(request.arg() == null ? List.of() : request.arg(),
                request.kwarg() == null ? Map.of() : request.kwarg()).toList();
        List<Object> shownArgs = shownArg == null ? arg : shownArg;
        if (!shownArgs.equals(arg)) {
            refuseSecretsOnTheSharedKey(minions);
        }
        String sealedArg = shownArgs.equals(arg) ? null : box.seal(Sql.toJson(arg));
        String jid = ids.next();
        // Built (and so checked) before anything is stored. Minions do not know nodegroups: Salt's master publishes
        // them expanded, as compound targets.
        PublishLoad load;
        try {
            // A scoped token's job that reaches salt-minions names them in a list: a salt-minion matches a broadcast job's
            // target itself, and another business's minion the target (or a list) would also match must not run it. A
            // Drover agent gets a frame of its own only when the server chose it, so its jobs keep their target (a
            // list of thousands in each agent's frame would cost the publisher their square).
            boolean asList = !principal.allBusinesses() && minions.stream().anyMatch(id -> keys.mode(id) != AgentMode.DROVER);
            load = new PublishLoad(request.fun(), arg, asList ? List.copyOf(minions) : type.equals("list") ? listed
                    : type.equals("nodegroup") || type.equals("compound")
                    ? TargetExpression.expandNodegroups(type, request.tgt(), nodegroups) : request.tgt(),
                    asList ? "list" : type.equals("nodegroup") ? "compound" : type, jid, "", principal.name());
        } catch (io.drover.transport.envelope.MalformedEnvelopeException e) {
            throw DomainException.invalid("job", e.getMessage());
        }
        // The event is written in the job's transaction and published by the event thread after the commit, in order
        // with the returns' events: no second round trip to mark it published, which on SQLite queued every job start
        // of a deployment behind one lock.
        List<io.drover.model.events.Event> created = jobStarts.write(h -> {
            repository.insertJob(h, jid, request.fun(), shownArgs, sealedArg, request.tgt(), type, minions, principal.name(),
                    request.timeout() == null ? null : java.time.OffsetDateTime.now(clock).plusSeconds(request.timeout()));
            return events.appendPublished(h, List.of(Map.entry("salt/job/" + jid + "/new", Map.of("jid", jid,
                    "fun", request.fun(), "arg", shownArgs, "tgt", request.tgt(), "tgt_type", type, "minions", minions,
                    "user", principal.name()))));
        });
        events.publishCommitted(created);
        LiveJob waiting = newLiveJob(minions, principal, hidden(arg, shownArgs));
        waiting.missing().addAll(minions);
        live.put(jid, waiting);
        JobStarted started = new JobStarted(jid, minions, absent);
        long publishing = System.nanoTime();
        try {
            beforePublish.accept(started);
            // A job for every accepted minion goes out as one broadcast frame instead of one frame per minion: the same
            // agents receive it (minions without an accepted key have no session key), with one send instead of thousands.
            // A job for every accepted minion goes out once for all (a broadcast, and each agent's own frame), unless
            // it carries a secret: that goes only to the agents named, each under its own key.
            publisher.publish(load, accepted != null && minions.size() == accepted.size() && sealedArg == null ? null : minions);
        } catch (RuntimeException e) {
            if (live.remove(jid, waiting)) { // nobody waits on a job that did not go out
                waiting.forget();
            }
            throw e;
        }
        log.debug("job {}: published to {} minion(s) in {} ms", jid, minions.size(), (System.nanoTime() - publishing) / 1_000_000);
        return started;
    }

    /**
     * Sends a job again to one of the minions it targeted that has not answered, under the same job id; nothing when
     * its return is stored. A Drover agent runs a job id at most once (its journal) and a Salt minion ignores a job id
     * it saw recently, so this reaches an agent that missed the first send (it was moving to another server, or the
     * server that sent it stopped) without running anything twice. False when the return is stored already.
     */
    public boolean redeliver(String jid, String agentId) {
        JobResult job = get(jid);
        if (job.returns().containsKey(agentId)) {
            return false;
        }
        if (!job.minions().contains(agentId)) {
            throw DomainException.invalid("minion", "job " + jid + " did not target " + agentId);
        }
        // A job that carries a secret is stored redacted: it goes again as it was sent, from its sealed copy.
        List<Object> sent = jdbi.withHandle(h -> repository.sealedArg(h, jid))
                .map(sealed -> Sql.fromJson(box.open(sealed), new com.fasterxml.jackson.core.type.TypeReference<List<Object>>() { }))
                .orElse(job.arg());
        LiveJob waiting = live.computeIfAbsent(jid, j -> newLiveJob(job.minions(), null, hidden(sent, job.arg())));
        waiting.missing().add(agentId);
        if (get(jid).returns().containsKey(agentId)) { // stored while the job was not live here
            answered(jid, agentId);
            return false;
        }
        publisher.publish(PublishLoad.forList(job.fun(), sent, List.of(agentId), jid, "redelivery"), List.of(agentId));
        log.debug("job {}: sent again to {}", jid, agentId);
        return true;
    }

    /**
     * The accepted minions a target names (the set the caller waits for; minions check the target themselves).
     * Id targets need nothing else; grain, address and compound targets use the grains each minion reported, and
     * a salt-minion that has reported none is expected whenever the target looks past ids (Salt's greedy default). A list
     * target (what subscriptions send, one agent per job) is answered from the accepted-key cache instead.
     */
    private List<String> expected(TargetExpression target, String type, List<String> accepted, boolean greedy) {
        boolean idOnly = List.of("glob", "pcre", "list").contains(type);
        return accepted.stream().filter(id -> {
            Map<String, Object> reported = grains.apply(id);
            // Greedy for a salt-minion only: a Drover agent reports grains with its first heartbeat, and one reporting
            // none (a compromised host, say) would otherwise be sent every grain-targeted job. Never for a scoped
            // token, whose job names its salt-minions in a list: one whose grains are unknown would run it unmatched.
            return target.matches(new MinionView(id, reported)) || (greedy && !idOnly && reported.isEmpty()
                    && keys.mode(id) != AgentMode.DROVER);
        }).toList();
    }

    /**
     * Stores a return once (a second return for the same job and minion, or one from a minion the job did not
     * target, is acknowledged and ignored) and answers
     * only after it is committed. Returns arriving together are written in one transaction (group commit): a
     * thousand agents answering at once cost a few transactions, not a thousand.
     *
     * @throws RequestDeferred when the return could not be stored in time (the database failed, or its disk is full):
     *                         the agent must send it again, and must not be told it was taken
     */
    @Override
    public boolean onReturn(String agentId, JobReturn ret) {
        String jid = ret.jid();
        PendingReturn pending = new PendingReturn(agentId, ret, new CompletableFuture<>());
        returns.add(pending);
        try {
            return pending.stored().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw notStored(jid, agentId, e);
        } catch (ExecutionException e) {
            throw notStored(jid, agentId, e.getCause());
        } catch (TimeoutException e) {
            throw notStored(jid, agentId, e);
        }
    }

    private static RequestDeferred notStored(String jid, String agentId, Throwable cause) {
        return new RequestDeferred("the return of job " + jid + " from " + agentId + " was not stored: " + cause, cause);
    }

    private record PendingReturn(String agentId, JobReturn ret, CompletableFuture<Boolean> stored) {
    }

    private void writeReturns() {
        List<PendingReturn> batch = new ArrayList<>();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                batch.add(returns.take());
            } catch (InterruptedException e) {
                return;
            }
            returns.drainTo(batch, 999);
            try {
                List<io.drover.model.events.Event> fired;
                try {
                    fired = storeBatch(batch);
                } catch (RuntimeException e) {
                    if (otherJobs.isEmpty()) {
                        throw e;
                    }
                    // Another server stored one of these returns (an agent that moved sent it to both): look again.
                    otherJobs.clear();
                    fired = storeBatch(batch);
                }
                for (io.drover.model.events.Event stored : fired) {
                    java.util.Set<String> waiting = otherJobs.get((String) stored.data().get("jid"));
                    if (waiting != null) {
                        waiting.remove((String) stored.data().get("id"));
                    }
                }
                batch.forEach(p -> p.stored().complete(true));
                batch.forEach(p -> answered(p.ret().jid(), p.agentId()));
                events.publishCommitted(fired);
            } catch (RuntimeException e) {
                if (Sql.isDiskFull(e)) {
                    log.warn("storing {} return(s) failed: the database's disk is full; the agents send them again", batch.size());
                } else {
                    log.warn("storing {} return(s) failed", batch.size(), e);
                }
                otherJobs.clear();
                batch.forEach(p -> p.stored().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    /**
     * The minions not yet heard from of recent jobs this server did not start (another server of the cluster did, or
     * this one before a restart), as read from the database once: without it every batch of returns to such a job
     * would read the job's whole target list and every return stored so far. Touched by the writer thread only.
     */
    private final Map<String, java.util.Set<String>> otherJobs = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, java.util.Set<String>> eldest) {
            return size() > 64;
        }
    };

    /** Stores a batch of returns in one transaction; the return events it wrote, to publish after commit. */
    private List<io.drover.model.events.Event> storeBatch(List<PendingReturn> batch) {
        return jdbi.inTransaction(h -> {
            List<String> jids = batch.stream().map(p -> p.ret().jid()).distinct().toList();
            // Only minions the job targeted may answer it, once; anything else is acknowledged and dropped. A live
            // job knows in memory who has not answered yet; other jobs are read from the database once and kept.
            // Names leave these sets after commit, so they are only read here.
            Map<String, java.util.Set<String>> awaiting = new java.util.HashMap<>();
            List<String> lookup = new ArrayList<>();
            for (String jid : jids) {
                LiveJob job = live.get(jid);
                java.util.Set<String> other = job == null ? otherJobs.get(jid) : null;
                if (job != null) {
                    awaiting.put(jid, job.missing());
                } else if (other != null) {
                    awaiting.put(jid, other);
                } else {
                    lookup.add(jid);
                }
            }
            if (!lookup.isEmpty()) {
                Map<String, java.util.Set<String>> read = repository.awaiting(h, lookup);
                awaiting.putAll(read);
                otherJobs.putAll(read);
            }
            Map<String, String> funs = repository.funs(h, jids);
            java.util.Set<String> taken = new java.util.HashSet<>();
            List<JobStore.ReturnRow> rows = new ArrayList<>();
            List<io.drover.server.events.EventStore.Encoded> fired = new ArrayList<>();
            for (PendingReturn p : batch) {
                String jid = p.ret().jid();
                if (!awaiting.getOrDefault(jid, java.util.Set.of()).contains(p.agentId()) || !taken.add(jid + '\0' + p.agentId())) {
                    continue;
                }
                LiveJob liveJob = live.get(jid);
                Object ret = Messages.jsonSafe(p.ret().value());
                if (liveJob != null && !liveJob.hidden().isEmpty()) {
                    ret = redacted(ret, liveJob.hidden());
                }
                int retcode = p.ret().retcode();
                boolean success = p.ret().success();
                String json = Sql.documentToJson(ret);
                int size = json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                int limit = "diag.operation".equals(funs.get(jid)) ? Math.max(returnMaxBytes, DIAGNOSIS_RETURN_MAX_BYTES) : returnMaxBytes;
                if (size > limit) {
                    ret = "the return of " + size + " bytes is over the limit of " + limit
                            + " bytes (setting return-max-bytes" + (limit == returnMaxBytes ? "" : ", at least " + DIAGNOSIS_RETURN_MAX_BYTES
                            + " for a diagnosis operation") + "); it was not stored";
                    json = Sql.toJson(ret);
                    retcode = retcode == 0 ? 1 : retcode;
                    success = false;
                }
                rows.add(new JobStore.ReturnRow(jid, p.agentId(), json, retcode, success,
                        p.ret().killed()));
                fired.add(ReturnEvent.of(jid, p.agentId(), funs.get(jid), ret, json, retcode, success));
            }
            repository.insertReturns(h, rows);
            return events.appendPublishedEncoded(h, fired);
        });
    }

    /**
     * What a job's returns must not show: each argument string it was sent in place of the one it is shown with, and
     * its md5 and sha256 (an agent may answer with the digest of what it wrote).
     */
    static java.util.Set<String> hidden(List<Object> sent, List<Object> shown) {
        java.util.Set<String> hidden = new java.util.HashSet<>();
        for (int i = 0; i < sent.size(); i++) {
            if (sent.get(i) instanceof String s && !s.isEmpty() && (i >= shown.size() || !s.equals(shown.get(i)))) {
                hidden.add(s);
                hidden.add(Hashing.md5(s));
                hidden.add(Hashing.sha256(s));
            }
        }
        return java.util.Set.copyOf(hidden);
    }

    /** A return with every occurrence of a hidden string (in any letter case, for digests) replaced. */
    static Object redacted(Object ret, java.util.Set<String> hidden) {
        return switch (ret) {
            case String s -> {
                String out = s;
                for (String h : hidden) {
                    out = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(h), java.util.regex.Pattern.CASE_INSENSITIVE)
                            .matcher(out).replaceAll(java.util.regex.Matcher.quoteReplacement(SecretReferences.REDACTED));
                }
                yield out;
            }
            case Map<?, ?> map -> {
                Map<Object, Object> out = new LinkedHashMap<>();
                map.forEach((k, v) -> out.put(k, redacted(v, hidden)));
                yield out;
            }
            case List<?> list -> list.stream().map(v -> redacted(v, hidden)).toList();
            case null, default -> ret;
        };
    }

    /** A return stored (by any server of the cluster): the job's waiting callers here hear of it. */
    public void returnStored(io.drover.model.events.Event event) {
        if (event.data().get("jid") instanceof String jid && event.data().get("id") instanceof String minion) {
            answered(jid, minion);
        }
    }

    private void answered(String jid, String agentId) {
        LiveJob job = live.get(jid);
        if (job != null) {
            job.firstReturnNanos().compareAndSet(0, System.nanoTime());
        }
        if (job != null && job.missing().remove(agentId) && job.missing().isEmpty()) {
            long now = System.nanoTime();
            log.debug("job {}: every return of {} stored, the first {} ms and the last {} ms after the job was written",
                    jid, job.expected(), (job.firstReturnNanos().get() - job.startedNanos()) / 1_000_000,
                    (now - job.startedNanos()) / 1_000_000);
            job.done().complete(null);
            if (live.remove(jid, job)) {
                job.forget();
            }
        }
    }

    /** Forgets jobs that stayed incomplete for a day (their returns are still stored if they come). */
    /**
     * Deletes the jobs (and their returns) older than the retention, a thousand per transaction so that writers
     * wait little for each; returns how many jobs were deleted.
     */
    public int prune(int retentionDays) {
        java.time.OffsetDateTime cutoff = java.time.OffsetDateTime.now(clock).minusDays(retentionDays);
        int total = 0;
        int deleted;
        do {
            deleted = jdbi.inTransaction(h -> repository.deleteCreatedBefore(h, cutoff, 1000));
            total += deleted;
        } while (deleted > 0);
        return total;
    }

    public void forgetStaleJobs() {
        long cutoff = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
        live.values().removeIf(job -> {
            if (job.startedNanos() < cutoff) {
                job.forget();
                return true;
            }
            return false;
        });
    }

    /**
     * The job once every targeted minion answered, or as it is when {@code wait} runs out: a client waits with one
     * request instead of polling.
     */
    public JobResult await(Principal principal, String jid, java.time.Duration wait) {
        return await(principal, jid, wait, JobStore.ReturnForm.VALUES);
    }

    /** {@link #await}, the returns as the JSON they are stored as: for an answer that writes them out unread. */
    JobResult await(Principal principal, String jid, java.time.Duration wait, JobStore.ReturnForm form) {
        if (!principal.allBusinesses()) {
            requireJob(principal, jid);
        }
        LiveJob job = live.get(jid);
        waitUntilDone(job, wait);
        JobResult result = jdbi.withHandle(h -> repository.find(h, jid, form)).orElseThrow(() -> DomainException.notFound("job", jid));
        if (job != null && result.missing().isEmpty() && live.remove(jid, job)) {
            // every return is stored though not every one was heard of here (a peer's, sent before this server
            // wanted them): the job is done
            job.done().complete(null);
            job.forget();
        }
        return result;
    }

    /**
     * One agent's return to a job, waited for up to {@code wait} (empty when it has not come): what the server's own
     * calls on agents read, without reading the whole job back. Refused as {@link #await} is for a principal whose
     * businesses do not hold every agent the job targeted.
     */
    public Optional<JobResult.Return> awaitReturn(Principal principal, String jid, String agentId, java.time.Duration wait) {
        LiveJob job = live.get(jid);
        // The principal that started the job here was checked against its agents then (a deployment's own calls).
        if (!principal.allBusinesses() && (job == null || job.startedBy() != principal)) {
            List<String> minions = job != null ? job.minions() : jdbi.withHandle(h -> repository.minions(h, jid))
                    .orElseThrow(() -> DomainException.notFound("job", jid));
            principal.requireAgentsOrMissing(minions, agentBusinesses, "job", jid);
        }
        waitUntilDone(job, wait);
        Optional<JobResult.Return> ret = jdbi.withHandle(h -> repository.findReturn(h, jid, agentId));
        if (ret.isPresent()) {
            answered(jid, agentId); // stored though perhaps not heard of here (a peer's, sent before this server wanted it)
        } else if (job == null && jdbi.withHandle(h -> repository.minions(h, jid)).isEmpty()) {
            throw DomainException.notFound("job", jid);
        }
        return ret;
    }

    /** Waits up to {@code wait} for every return of a job waited on here (none: returns at once). */
    private static void waitUntilDone(LiveJob job, java.time.Duration wait) {
        if (job == null || wait.isZero()) {
            return;
        }
        try {
            job.done().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // answer with what is there
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        writer.interrupt();
    }

    /** How far back the sweeps look: a job is forgotten by this server after a day too ({@link #forgetStaleJobs}). */
    private static final java.time.Duration SWEPT = java.time.Duration.ofDays(1);
    /** The most agents a page of {@link #agents} holds. */
    public static final int MAX_PAGE = 5_000;

    /**
     * What an agent reported of a job it was sent ({@code drover/agent/<id>/job/<jid>/received|running}): recorded
     * when it moves the agent forward (a late or repeated report changes nothing), and only for an agent the job
     * targeted. Reports arriving together share a transaction.
     */
    @Override
    public void onAgentState(String agentId, String jid, AgentJobState state) {
        List<AgentJobState> from = switch (state) {
            case RECEIVED -> List.of(AgentJobState.PUBLISHED);
            case RUNNING -> List.of(AgentJobState.PUBLISHED, AgentJobState.RECEIVED);
            default -> throw new IllegalArgumentException("an agent does not report " + state);
        };
        stateWrites.write(h -> repository.advance(h, jid, agentId, state, from));
    }

    /** Agents' reports of their jobs share transactions, as job starts do. */
    private final GroupCommit stateWrites;

    /** Where the last sweep for timeouts ended (a day back after a start): each job's timeout is swept once. */
    private volatile java.time.OffsetDateTime sweptUntil;

    /** Records TIMED_OUT for the agents of jobs whose timeout passed that have not returned; how many. */
    public synchronized int recordTimeouts() {
        java.time.OffsetDateTime now = java.time.OffsetDateTime.now(clock);
        java.time.OffsetDateTime since = sweptUntil == null ? now.minus(SWEPT) : sweptUntil;
        int recorded = jdbi.inTransaction(h -> repository.recordTimeouts(h, since, now));
        sweptUntil = now;
        return recorded;
    }

    /** An agent went offline ({@code drover/agent/<id>/lost}): the jobs it had not finished record AGENT_LOST. */
    public void agentLost(io.drover.model.events.Event event) {
        if (event.data().get("id") instanceof String id) {
            jdbi.useTransaction(h -> repository.recordLost(h, id, java.time.OffsetDateTime.now(clock).minus(SWEPT)));
        }
    }

    /**
     * A page of a job's agents, in id order after {@code after}, with their recorded states and returns: a job to
     * 100,000 agents is read a page at a time. Refused (403) for a principal whose businesses do not hold every
     * agent of the job; 404 for no such job. The returns are their stored JSON, to be written out (an API answer).
     */
    AgentJobPage agents(Principal principal, String jid, String after, int limit) {
        requireJob(principal, jid);
        List<AgentJob> page = jdbi.withHandle(h -> repository.page(h, jid, after, limit + 1, JobStore.ReturnForm.STORED_JSON));
        boolean more = page.size() > limit;
        List<AgentJob> shown = more ? page.subList(0, limit) : page;
        return new AgentJobPage(jid, shown, more ? shown.getLast().id() : null);
    }

    /**
     * 404 when there is no such job; 403 when the principal's businesses do not hold every agent of the job (read
     * only for a scoped principal: a page of a large job does not read its whole target list).
     */
    private void requireJob(Principal principal, String jid) {
        if (principal.allBusinesses()) {
            if (!jdbi.withHandle(h -> repository.exists(h, jid))) {
                throw DomainException.notFound("job", jid);
            }
            return;
        }
        List<String> minions = jdbi.withHandle(h -> repository.minions(h, jid)).orElseThrow(() -> DomainException.notFound("job", jid));
        principal.requireAgentsOrMissing(minions, agentBusinesses, "job", jid);
    }

    /**
     * Up to {@code limit} jobs older than {@code before}, newest first, with how many agents are in each state; a
     * business-scoped principal sees only jobs whose every agent is in its businesses.
     */
    public List<JobSummary> list(Principal principal, String before, int limit) {
        return jdbi.withHandle(h -> repository.list(h, before, limit)).stream()
                .filter(j -> {
                    if (principal.allBusinesses()) {
                        return true;
                    }
                    Map<String, Long> businesses = agentBusinesses.apply(j.minions());
                    return j.minions().stream().allMatch(id -> principal.covers(businesses.get(id)));
                })
                .map(JobStore.Listed::summary).toList();
    }

    /**
     * Stops a job on its agents ({@code targets}: some of them; null or empty: all): the agents still working on it
     * are recorded CANCELLED and sent {@code saltutil.kill_job} (a Drover agent kills the job's process groups and
     * the job returns marked killed; a salt-minion kills the job's process). A target the job did not name is refused
     * (422); a principal whose businesses do not hold every agent concerned is refused (403) without their names.
     */
    public JobCancelled cancel(Principal principal, String jid, List<String> targets) {
        List<String> minions = jdbi.withHandle(h -> repository.minions(h, jid)).orElseThrow(() -> DomainException.notFound("job", jid));
        List<String> chosen = targets == null || targets.isEmpty() ? null : targets.stream().distinct().toList();
        if (chosen != null) {
            // Checked first against the principal, every id named (an unknown one is in no business): a scoped token
            // learns nothing of the job's other agents, nor whether an agent outside its businesses ran it.
            principal.requireAgents(chosen, agentBusinesses, "the cancel names");
            java.util.Set<String> named = new java.util.HashSet<>(minions);
            List<String> foreign = chosen.stream().filter(id -> !named.contains(id)).toList();
            if (!foreign.isEmpty()) {
                throw DomainException.invalid("targets", foreign.size() + " of the targets were not sent job " + jid
                        + " (first: " + io.drover.transport.logging.RateLimitedLog.shown(foreign.getFirst(), 80) + ")");
            }
        } else {
            principal.requireAgentsOrMissing(minions, agentBusinesses, "job", jid);
        }
        List<String> cancelled = jdbi.inTransaction(h -> repository.cancel(h, jid, chosen));
        String killJid = null;
        if (!cancelled.isEmpty()) {
            try {
                killJid = start(principal, String.join(",", cancelled), "list", new io.drover.model.agentapi.AgentCall.KillJob(jid),
                        60).jid();
            } catch (DomainException e) {
                // none of them is an accepted agent any more (their keys were deleted): nothing to send the kill to
                log.info("job {}: cancelled on {} agent(s), none of which can be sent the kill: {}", jid, cancelled.size(), e.getMessage());
            }
            log.info("job {}: cancelled on {} agent(s) by {} (kill job {})", jid, cancelled.size(), principal.name(), killJid);
        }
        int concerned = chosen == null ? minions.size() : chosen.size();
        return new JobCancelled(jid, cancelled.size(), concerned - cancelled.size(), killJid);
    }

    public JobResult get(String jid) {
        return jdbi.withHandle(h -> repository.find(h, jid)).orElseThrow(() -> DomainException.notFound("job", jid));
    }
}

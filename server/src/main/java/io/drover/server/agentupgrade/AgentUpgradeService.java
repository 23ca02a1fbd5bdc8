package io.drover.server.agentupgrade;

import io.drover.core.agents.AgentPackageName;
import io.drover.core.agentupgrade.Rollout;
import io.drover.model.agentupgrade.AgentUpgradeRequest;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import io.drover.model.agentupgrade.RolloutStatus;
import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.model.api.Problem.FieldError;
import io.drover.server.agentpackages.AgentPackageService;
import io.drover.server.auth.Principal;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.errors.DomainException;
import io.drover.server.jobs.AgentCalls;
import io.drover.server.jobs.JobService;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fleet upgrades through the running agents: checks a request (the target resolved as a job's, within the business of
 * the body; a package of the version for every architecture the agents report), creates the task with a row per agent
 * and runs its batches, one after the other, on a thread of its own; the agents of a batch at the same time
 * ({@link HostUpgrade}). The stop at the failure ratio is {@link Rollout}'s.
 */
public final class AgentUpgradeService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AgentUpgradeService.class);

    static final int MAX_AGENTS = 10_000;
    static final int DEFAULT_BATCH_SIZE = 10;
    static final int DEFAULT_WAIT_SECONDS = 180;
    static final int MIN_WAIT_SECONDS = 10;
    static final int MAX_WAIT_SECONDS = 3600;
    /**
     * Hand-overs ({@code agent.upgrade}: the agent fetches the package through the request channel) at the same time
     * on this server, over all its tasks: several big tasks wait for each other rather than fill the channel.
     */
    static final int MAX_HAND_OVERS = 50;
    static final int LIST_LIMIT = 500;

    /** The accepted agents a target names, refused (422, 403) as a job's target would be: {@link JobService#resolve}. */
    public interface Targets {
        List<String> resolve(Principal p, String tgt, String tgtType);
    }

    /** What the service reads of the agents: the registry's live view. */
    public interface Agents {
        boolean online(String id);

        /** The version its last heartbeat reported (null: none). */
        String version(String id);

        /** {@code cpuarch} of its grains (null: not reported). */
        String arch(String id);

        /** The business of each agent's host (left out: none). */
        Map<String, Long> businesses(java.util.Collection<String> ids);
    }

    private final UpgradeStore store;
    private final Targets targets;
    private final AgentCalls calls;
    private final Agents agents;
    private final AgentPackageService packages;
    private final WorkLeaseStore leases;
    private final Clock clock;
    private final HostUpgrade.Timing timing;
    private final Semaphore handOvers;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("agent-upgrade-", 0).factory());

    /** @param leases the leases of the tasks this server runs (renewed by the server every lease period) */
    public AgentUpgradeService(Jdbi jdbi, Targets targets, AgentCalls calls, Agents agents, AgentPackageService packages,
                               WorkLeaseStore leases, Clock clock) {
        this(jdbi, targets, calls, agents, packages, leases, clock, HostUpgrade.Timing.DEFAULT, MAX_HAND_OVERS);
    }

    AgentUpgradeService(Jdbi jdbi, Targets targets, AgentCalls calls, Agents agents, AgentPackageService packages,
                        WorkLeaseStore leases, Clock clock, HostUpgrade.Timing timing, int maxHandOvers) {
        this.store = new UpgradeStore(jdbi, clock);
        this.targets = targets;
        this.calls = calls;
        this.agents = agents;
        this.packages = packages;
        this.leases = leases;
        this.clock = clock;
        this.timing = timing;
        this.handOvers = new Semaphore(maxHandOvers, true);
        failAbandoned(true);
    }

    /**
     * Fails the running tasks of servers that stopped: their leases ran out (a server of the cluster died), or, at the
     * start of a server alone, every task its last run left. Called at start, before each new task and every lease
     * period.
     */
    public void failAbandoned(boolean atStart) {
        int failed = store.failAbandoned(leases.claimAbandoned(WorkLeaseStore.Work.AGENT_UPGRADE, atStart));
        if (failed > 0) {
            log.warn("{} agent upgrade(s) were left running by a server that stopped: they failed (start a new one for the "
                    + "agents left)", failed);
        }
    }

    public synchronized AgentUpgradeTask start(Principal p, AgentUpgradeRequest r) {
        if (r == null) {
            throw DomainException.invalid("version", "is required");
        }
        List<FieldError> errors = new ArrayList<>();
        String versionProblem = AgentPackageName.versionProblem(r.version());
        if (versionProblem != null) {
            errors.add(new FieldError("version", versionProblem));
        }
        int batchSize = r.batchSize() == null ? DEFAULT_BATCH_SIZE : r.batchSize();
        if (batchSize < 1 || batchSize > Rollout.MAX_BATCH_SIZE) {
            errors.add(new FieldError("batch_size", "must be 1 to " + Rollout.MAX_BATCH_SIZE));
        }
        double ratio = r.maxFailureRatio() == null ? 0 : r.maxFailureRatio();
        if (!(ratio >= 0 && ratio <= 1)) {
            errors.add(new FieldError("max_failure_ratio", "must be 0 to 1"));
        }
        int wait = r.waitSeconds() == null ? DEFAULT_WAIT_SECONDS : r.waitSeconds();
        if (wait < MIN_WAIT_SECONDS || wait > MAX_WAIT_SECONDS) {
            errors.add(new FieldError("wait_seconds", "must be " + MIN_WAIT_SECONDS + " to " + MAX_WAIT_SECONDS));
        }
        if (r.tgt() != null && r.tgt().length() > 4096) {
            errors.add(new FieldError("tgt", "is longer than 4096 characters"));
        } else if (r.tgt() != null && r.tgt().codePoints().anyMatch(AgentUpgradeService::unprintable)) {
            errors.add(new FieldError("tgt", "holds control or format characters (NUL, line breaks, bidirectional marks...)"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        if (r.bkBizId() != null) {
            p.requireBiz(r.bkBizId());
        }
        String type = r.tgtType() == null ? "glob" : r.tgtType();
        List<String> targeted = targets.resolve(p, r.tgt(), type);
        if (targeted.size() > MAX_AGENTS) {
            throw DomainException.invalid("tgt", "names " + targeted.size() + " agents; at most " + MAX_AGENTS + " in one upgrade");
        }
        Map<String, Long> businesses = agents.businesses(targeted);
        long biz = r.bkBizId() != null ? r.bkBizId() : onlyBusiness(targeted, businesses);
        List<String> outside = targeted.stream().filter(id -> !Long.valueOf(biz).equals(businesses.get(id))).sorted().toList();
        if (!outside.isEmpty()) {
            throw DomainException.forbidden("every agent upgraded must be on a host of business " + biz + ": " + outside.size()
                    + " of the " + targeted.size() + " agents the target names are not (first: "
                    + String.join(", ", outside.subList(0, Math.min(5, outside.size()))) + ")");
        }
        Set<String> arches = new TreeSet<>();
        targeted.forEach(id -> {
            String arch = agents.arch(id);
            if (AgentPackageName.ARCHES.contains(arch)) {
                arches.add(arch);
            }
        });
        List<String> missing = arches.stream().filter(a -> packages.find(r.version(), a).isEmpty()).toList();
        if (packages.list().stream().noneMatch(i -> i.version().equals(r.version())) || !missing.isEmpty()) {
            throw DomainException.unprocessable("agent_package_missing", "no agent package " + r.version() + " is stored for "
                    + (missing.isEmpty() ? "any architecture" : String.join(" and ", missing)) + ": upload it first "
                    + "(drover agent-package upload FILE)", List.of(new FieldError("version", "has no agent package for "
                    + (missing.isEmpty() ? "any architecture" : String.join(", ", missing)))));
        }
        failAbandoned(false);
        Set<String> busyAgents = store.busyAgents();
        List<String> busy = targeted.stream().filter(busyAgents::contains).distinct().sorted().toList();
        if (!busy.isEmpty()) {
            throw DomainException.conflict("upgrade_running", busy.size() + " of the agents are in an upgrade that is still "
                    + "running (first: " + String.join(", ", busy.subList(0, Math.min(5, busy.size()))) + "): wait for its end, "
                    + "or cancel it (drover agent upgrade-cancel ID)");
        }
        List<String> ordered = targeted.stream().distinct().sorted().toList();
        Rollout rollout = new Rollout(ordered, batchSize, ratio);
        boolean downgrade = Boolean.TRUE.equals(r.allowDowngrade());
        long id = store.create(new UpgradeStore.NewTask(biz, r.version(), r.tgt(), type, batchSize, ratio, wait, downgrade,
                p.name(), Rollout.cut(ordered, batchSize)));
        leases.own(WorkLeaseStore.Work.AGENT_UPGRADE, id);
        log.info("agent upgrade {}: {} agent(s) of business {} to {} in batches of {} by {}", id, ordered.size(), biz,
                r.version(), batchSize, p.name());
        AgentCalls scoped = calls.forBusinesses(Set.of(biz));
        threads.submit(() -> run(id, new HostUpgrade.Order(r.version(), wait, downgrade), rollout, scoped));
        return store.get(id);
    }

    /** Control and format characters (NUL, escapes, line breaks, bidirectional marks), which a terminal would obey. */
    private static boolean unprintable(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }

    /**
     * Asks a running task to start no further batch: its agents not started end not started and the task cancelled,
     * once the batch under way has ended (whichever server of the cluster runs it). 409 when it is not running.
     */
    public AgentUpgradeTask cancel(Principal p, long id) {
        get(p, id);
        if (!store.requestCancel(id)) {
            throw DomainException.conflict("upgrade_not_running", "agent upgrade " + id + " is " + store.get(id).status().wire()
                    + ": there is nothing to cancel");
        }
        log.info("agent upgrade {}: cancelled by {}; no further batch starts", id, p.name());
        return store.get(id);
    }

    /** The business of the agents when they are all in one (a request without bk_biz_id). */
    private static long onlyBusiness(List<String> targeted, Map<String, Long> businesses) {
        Set<Long> all = new TreeSet<>(businesses.values());
        if (all.size() != 1 || businesses.size() != targeted.size()) {
            throw DomainException.invalid("bk_biz_id", "is required: the agents the target names are not all on hosts of one "
                    + "business" + (all.isEmpty() ? "" : " (they are in " + all + ")"));
        }
        return all.iterator().next();
    }

    private void run(long id, HostUpgrade.Order order, Rollout rollout, AgentCalls scoped) {
        RolloutStatus status = RolloutStatus.FAILED;
        try {
            // placed under the file root once per task and architecture, not once per agent
            Map<String, Optional<HostUpgrade.Package>> placed = new ConcurrentHashMap<>();
            HostUpgrade.Needs needs = new HostUpgrade.Needs(scoped, agents, arch -> placed.computeIfAbsent(arch,
                    a -> packages.find(order.version(), a).map(info -> new HostUpgrade.Package(info, packages.publish(info)))),
                    store, clock, timing, handOvers);
            Optional<List<String>> batch;
            // a server that stops ends the task between batches (its host threads were interrupted)
            while (!Thread.currentThread().isInterrupted() && (batch = nextBatch(id, rollout)).isPresent()) {
                try (ExecutorService perHost = Executors.newThreadPerTaskExecutor(Thread.ofVirtual()
                        .name("agent-upgrade-" + id + "-", 0).factory())) {
                    for (String agent : batch.get()) {
                        perHost.submit(() -> new HostUpgrade(id, agent, order, rollout, needs).run());
                    }
                }
            }
            status = rollout.status() == RolloutStatus.RUNNING ? RolloutStatus.FAILED : rollout.status();
        } catch (RuntimeException e) {
            log.error("agent upgrade {} ended by an error", id, e);
        } finally {
            store.finish(id, status);
            log.info("agent upgrade {} {}: {} succeeded, {} skipped, {} failed, {} not started", id, status.wire(),
                    rollout.count(UpgradeHostState.SUCCEEDED), rollout.count(UpgradeHostState.SKIPPED), rollout.count(UpgradeHostState.FAILED),
                    rollout.count(UpgradeHostState.NOT_STARTED));
        }
    }

    /** The next batch, unless the task was cancelled (the cancel is read from the database: any server may take it). */
    private Optional<List<String>> nextBatch(long id, Rollout rollout) {
        if (store.cancelRequested(id)) {
            rollout.cancel();
        }
        return rollout.nextBatch();
    }

    public AgentUpgradeTask get(Principal p, long id) {
        AgentUpgradeTask task = store.get(id);
        if (!p.mayTouch(task.bkBizId())) {
            throw DomainException.notFound("agent upgrade", id);
        }
        return task;
    }

    /** The newest tasks of the businesses the principal covers. */
    public List<AgentUpgradeTask> list(Principal p) {
        return store.list(p.bizFilter(), LIST_LIMIT);
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}

package io.drover.server.plans;

import io.drover.core.plans.PlanException;
import io.drover.model.plans.PlanJson;
import io.drover.core.plans.PlanValidator;
import io.drover.model.agentapi.AgentCall;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import io.drover.model.plans.PlanRequest;
import io.drover.model.plans.PlanRun;
import io.drover.model.plans.PlanStarted;
import io.drover.model.plans.PlanStatus;
import io.drover.model.plans.PlanSummary;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.jobs.JobService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;

/**
 * Execution plans over the Drover transport: a plan is checked here (its format; each agent checks its own
 * platforms), stored, and sent as one {@code plan.execute} job to the agents the target names; the job's returns
 * are the per-host results, and the log messages hosts send arrive as agent events.
 */
public final class ExecutionPlans {
    /** Every deployment platform an agent may have: what a plan may name (whether a given host has it, it says). */
    static final Set<String> PLATFORMS = Set.of("Application", "Bash", "Python", "SaltStack", "Chef", "Puppet", "PowerShell");
    static final int MAX_LOG_LINES = 10_000;
    /** A host that sends more log lines for one plan has the rest dropped (they stay in the agent's own log). */
    static final int MAX_LOG_LINES_PER_HOST = 1_000;
    private static final PlanValidator FORMAT = PlanValidator.supporting(PLATFORMS);

    private final Jdbi jdbi;
    private final JobService jobs;
    private final Function<Collection<String>, Map<String, Long>> agentBusinesses;
    private final PlanStore repository = new PlanStore();
    private final Clock clock;

    public ExecutionPlans(Jdbi jdbi, JobService jobs, Function<Collection<String>, Map<String, Long>> agentBusinesses, Clock clock) {
        this.jdbi = jdbi;
        this.jobs = jobs;
        this.agentBusinesses = agentBusinesses;
        this.clock = clock;
    }

    public PlanStarted submit(Principal principal, PlanRequest request) {
        if (request.plan() == null) {
            throw DomainException.invalid("plan", "is required (the execution plan document)");
        }
        if (request.timeout() != null && (request.timeout() < 1 || request.timeout() > 86_400)) {
            throw DomainException.invalid("timeout", "must be 1 to 86400 seconds");
        }
        Map<String, Object> plan = new LinkedHashMap<>(request.plan());
        if (request.parameters() != null && !request.parameters().isEmpty()) {
            if (plan.get("Parameters") != null && !(plan.get("Parameters") instanceof Map<?, ?>)) {
                throw DomainException.invalid("plan.Parameters", "is not a dictionary");
            }
            Map<String, Object> parameters = new LinkedHashMap<>();
            if (plan.get("Parameters") instanceof Map<?, ?> given) {
                given.forEach((k, v) -> parameters.put(String.valueOf(k), v));
            }
            parameters.putAll(request.parameters());
            plan.put("Parameters", parameters);
        }
        if (plan.get("ID") == null) {
            plan.put("ID", UUID.randomUUID().toString().replace("-", ""));
        }
        String id;
        String name;
        try {
            var checked = FORMAT.validate(plan, null);
            id = checked.id();
            name = checked.name();
            if (checked.converted()) {
                throw DomainException.invalid("plan.FormatVersion", "vCurrent (1.0.0) plans come over AMQP from the engine; "
                        + "send a vNext plan (FormatVersion 2.0.0 to 2.2.0) here");
            }
        } catch (PlanException e) {
            throw DomainException.invalid("plan", "error " + e.code() + ": " + e.getMessage());
        }
        if (!id.matches("[A-Za-z0-9._:-]{1,128}")) {
            throw DomainException.invalid("plan.ID", "must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
        }
        if (jdbi.withHandle(h -> repository.exists(h, id))) {
            throw DomainException.conflict("plan_exists", "a plan with ID " + id + " was already sent; plans with the same ID are "
                    + "duplicates (leave ID out and the server makes one)");
        }
        int timeout = request.timeout() == null ? 3600 : request.timeout();
        OffsetDateTime now = OffsetDateTime.now(clock);
        // The plan is stored before any agent is sent it: a log line it sends at once finds it.
        JobStarted job = jobs.start(principal, request.tgt(), request.tgtType(), new AgentCall.RunPlan(PlanJson.write(plan)), timeout,
                started -> jdbi.useTransaction(h -> repository.insert(h, new PlanStore.PlanRow(id, name, started.jid(), request.tgt(),
                        request.tgtType() == null ? "glob" : request.tgtType(), started.minions(), plan, principal.name(), now))));
        return new PlanStarted(id, job.jid(), job.minions(), job.missing());
    }

    /** The plan with its results so far; {@code wait} lets the caller wait for the remaining hosts. */
    public PlanRun get(Principal principal, String id, Duration wait) {
        PlanStore.PlanRow row = jdbi.withHandle(h -> repository.find(h, id)).orElseThrow(() -> DomainException.notFound("plan", id));
        principal.requireAgentsOrMissing(row.minions(), agentBusinesses, "plan", id);
        JobResult job = jobs.await(principal, row.jid(), wait);
        Map<String, PlanRun.HostResult> results = new LinkedHashMap<>();
        job.returns().forEach((agent, ret) -> results.put(agent, hostResult(ret)));
        List<PlanRun.LogLine> logs = jdbi.withHandle(h -> repository.logs(h, id, MAX_LOG_LINES));
        return new PlanRun(row.id(), row.name(), row.jid(), row.tgt(), row.tgtType(), row.createdBy(), row.createdAt(),
                status(job.missing().size(), results.values()), row.minions(), job.missing(), results, logs, row.document());
    }

    public List<PlanSummary> list(Principal principal, int limit) {
        return jdbi.withHandle(h -> repository.newest(h, Math.max(1, Math.min(limit, 1000)))).stream()
                .filter(row -> principal.allBusinesses() || covered(principal, row.minions()))
                .map(row -> {
                    JobResult job = jobs.get(row.jid());
                    List<PlanRun.HostResult> results = job.returns().values().stream().map(ExecutionPlans::hostResult).toList();
                    int failed = (int) results.stream().filter(r -> r.errorCode() != 0).count();
                    return new PlanSummary(row.id(), row.name(), row.jid(), row.createdBy(), row.createdAt(),
                            status(job.missing().size(), results), row.minions().size(), results.size() - failed, failed);
                }).toList();
    }

    /**
     * A log message an agent sent for a plan ({@code drover/plan/<ID>/log}); kept when the plan exists and ran on
     * that agent, otherwise ignored. True when kept.
     */
    public boolean onLog(String agentId, String planId, Map<?, ?> message) {
        if (planId.length() > 128) {
            return false;
        }
        return jdbi.inTransaction(h -> {
            var row = repository.find(h, planId);
            if (row.isEmpty() || !row.get().minions().contains(agentId)
                    || repository.countLogs(h, planId, agentId) >= MAX_LOG_LINES_PER_HOST) {
                return false;
            }
            String level = message.get("Level") instanceof String l && l.length() <= 16 ? l.toLowerCase(Locale.ROOT) : "info";
            String body = String.valueOf(message.get("Body"));
            OffsetDateTime at = OffsetDateTime.now(clock);
            if (message.get("Time") instanceof String time) {
                try {
                    at = OffsetDateTime.ofInstant(Instant.parse(time), ZoneOffset.UTC);
                } catch (RuntimeException e) {
                    // the server's time, then
                }
            }
            repository.insertLog(h, planId, agentId, level, body.length() > 65_536 ? body.substring(0, 65_536) : body, at);
            return true;
        });
    }

    private boolean covered(Principal principal, List<String> minions) {
        Map<String, Long> businesses = agentBusinesses.apply(minions);
        return minions.stream().allMatch(m -> principal.covers(businesses.get(m)));
    }

    private static PlanStatus status(int missing, Collection<PlanRun.HostResult> results) {
        if (missing > 0) {
            return PlanStatus.RUNNING;
        }
        return results.stream().allMatch(r -> r.errorCode() == 0) ? PlanStatus.SUCCEEDED : PlanStatus.FAILED;
    }

    /** A host's answer: the result document, or an error text (an agent that does not run plans, a refused call). */
    static PlanRun.HostResult hostResult(JobResult.Return ret) {
        if (ret.ret() instanceof Map<?, ?> document && document.get("ErrorCode") instanceof Number code) {
            String message = code.intValue() != 0 && document.get("Body") instanceof Map<?, ?> body && body.get("Message") != null
                    ? String.valueOf(body.get("Message")) : "";
            return new PlanRun.HostResult(code.intValue(), message, document, ret.at());
        }
        boolean ok = ret.success() && ret.retcode() == 0;
        return new PlanRun.HostResult(ok ? 0 : 1, ok ? "" : String.valueOf(ret.ret()), ret.ret(), ret.at());
    }
}

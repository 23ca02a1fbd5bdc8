package io.drover.server.jobs;

import io.drover.server.errors.DomainException;
import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.auth.Role;
import io.drover.model.jobs.JobRequest;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobStarted;
import io.drover.model.keys.MinionKey;
import io.drover.server.http.ApiException;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Route.Shape;
import io.drover.server.keys.KeyStore;
import io.drover.server.auth.Principal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Keys (like salt-key) and remote execution jobs. */
public final class JobRoutes {
    private final KeyStore keys;
    private final JobService jobs;
    private final Function<Collection<String>, Map<String, Long>> agentBusinesses;

    public JobRoutes(KeyStore keys, JobService jobs, Function<Collection<String>, Map<String, Long>> agentBusinesses) {
        this.keys = keys;
        this.jobs = jobs;
        this.agentBusinesses = agentBusinesses;
    }

    /** A key belongs to its agent's business: a scoped token sees and changes only those of its businesses. */
    private void requireKey(Principal principal, String id) {
        principal.requireAgents(List.of(id), agentBusinesses, "of key '" + id + "'");
    }

    private static String jid(String name, String text) {
        if (!text.matches("\\d{20}")) {
            throw DomainException.invalid(name, io.drover.transport.logging.RateLimitedLog.shown(text, 40)
                    + " is not a 20-digit job id");
        }
        return text;
    }

    public void register(HttpApi api) {
        api.get(API + "/keys", Role.VIEWER, Scope.BUSINESS, "List agent keys (?state=accepted|pending|rejected|denied)", MinionKey.class,
                Shape.LIST, ctx -> {
                    String state = ctx.queryParam("state");
                    if (state != null && !List.of(KeyStore.ACCEPTED, KeyStore.PENDING, KeyStore.REJECTED, KeyStore.DENIED)
                            .contains(state)) {
                        throw DomainException.invalid("state", "'" + state + "' is not accepted, pending, rejected or denied");
                    }
                    Principal principal = principal(ctx);
                    List<MinionKey> all = keys.list(state);
                    if (principal.allBusinesses()) {
                        ctx.json(all);
                    } else {
                        Map<String, Long> businesses = agentBusinesses.apply(all.stream().map(MinionKey::id).toList());
                        ctx.json(all.stream().filter(k -> principal.covers(businesses.get(k.id()))).toList());
                    }
                });
        api.post(API + "/keys/{id}/accept", Role.ADMIN, Scope.BUSINESS, "Accept an agent key", null, MinionKey.class, 200,
                ctx -> {
                    requireKey(principal(ctx), ctx.pathParam("id"));
                    ctx.json(keys.setState(ctx.pathParam("id"), KeyStore.ACCEPTED));
                });
        api.post(API + "/keys/{id}/reject", Role.ADMIN, Scope.BUSINESS, "Reject an agent key (rotates the session key)", null,
                MinionKey.class, 200, ctx -> {
                    requireKey(principal(ctx), ctx.pathParam("id"));
                    ctx.json(keys.setState(ctx.pathParam("id"), KeyStore.REJECTED));
                });
        api.delete(API + "/keys/{id}", Role.ADMIN, Scope.BUSINESS, "Delete an agent key (rotates the session key)",
                ctx -> {
                    requireKey(principal(ctx), ctx.pathParam("id"));
                    keys.delete(ctx.pathParam("id"));
                });
        api.post(API + "/jobs", Role.OPERATOR, Scope.BUSINESS, "Run a function on the agents a target names", JobRequest.class,
                JobStarted.class, 201, ctx -> ctx.json(jobs.start(principal(ctx), Bodies.read(ctx, JobRequest.class))));
        api.get(API + "/jobs", Role.VIEWER, Scope.BUSINESS,
                "Jobs, newest first, with how many agents are in each recorded state; ?before=JID&limit=N (up to 1000) pages back",
                io.drover.model.jobs.JobSummary.class, Shape.LIST, ctx -> {
                    String before = ctx.queryParam("before");
                    if (before != null && !before.isEmpty()) {
                        jid("before", before);
                    }
                    int limit = (int) io.drover.server.http.Params.bounded(ctx, "limit", 100, 1, 1000);
                    ctx.json(jobs.list(principal(ctx), before == null || before.isEmpty() ? null : before, limit));
                });
        api.get(API + "/jobs/{jid}/returns", Role.VIEWER, Scope.BUSINESS,
                "A page of the job's agents in id order, each with its recorded state and its return when stored; ?after=ID"
                        + " (the previous page's next) and ?limit=N (1 to " + JobService.MAX_PAGE + ", default 500)",
                io.drover.model.jobs.AgentJobPage.class, Shape.ONE, ctx -> {
                    String jid = jid("jid", ctx.pathParam("jid"));
                    String after = io.drover.server.http.Params.text(ctx, "after", 255);
                    int limit = (int) io.drover.server.http.Params.bounded(ctx, "limit", 500, 1, JobService.MAX_PAGE);
                    ctx.json(jobs.agents(principal(ctx), jid, after, limit));
                });
        api.post(API + "/jobs/{jid}/cancel", Role.OPERATOR, Scope.BUSINESS,
                "Stop a job on its agents (all, or the body's targets): their processes are killed (saltutil.kill_job) and"
                        + " each agent still working on it is recorded cancelled",
                io.drover.model.jobs.JobCancelRequest.class, io.drover.model.jobs.JobCancelled.class, 200, ctx -> {
                    String jid = jid("jid", ctx.pathParam("jid"));
                    io.drover.model.jobs.JobCancelRequest body = Bodies.readOptional(ctx, io.drover.model.jobs.JobCancelRequest.class);
                    List<String> targets = body == null ? null : body.targets();
                    if (targets != null) {
                        if (targets.size() > 100_000) {
                            throw DomainException.invalid("targets", "names " + targets.size() + " agents; at most 100000");
                        }
                        for (int i = 0; i < targets.size(); i++) {
                            String id = targets.get(i);
                            if (id == null || id.isBlank() || id.length() > 255 || !id.chars().allMatch(c -> c > 0x20 && c != 0x7f)) {
                                throw DomainException.invalid("targets[" + i + "]", "is not an agent id");
                            }
                        }
                    }
                    ctx.json(jobs.cancel(principal(ctx), jid, targets));
                });
        api.get(API + "/jobs/{jid}", Role.VIEWER, Scope.BUSINESS,
                "A job with its returns so far and the minions still missing; ?wait=S (up to 60) answers once every minion returned or after S seconds",
                JobResult.class, Shape.ONE, ctx -> {
                    String jid = jid("jid", ctx.pathParam("jid"));
                    long wait = io.drover.server.http.Params.bounded(ctx, "wait", 0, 0, 60);
                    ctx.json(jobs.await(principal(ctx), jid, java.time.Duration.ofSeconds(wait), JobStore.ReturnForm.STORED_JSON));
                });
    }
}

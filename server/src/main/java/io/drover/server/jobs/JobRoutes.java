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
        api.get(API + "/jobs/{jid}", Role.VIEWER, Scope.BUSINESS,
                "A job with its returns so far and the minions still missing; ?wait=S (up to 60) answers once every minion returned or after S seconds",
                JobResult.class, Shape.ONE, ctx -> {
                    String jid = ctx.pathParam("jid");
                    if (!jid.matches("\\d{20}")) {
                        throw DomainException.invalid("jid", "'" + jid + "' is not a 20-digit job id");
                    }
                    long wait = io.drover.server.http.Params.bounded(ctx, "wait", 0, 0, 60);
                    ctx.json(jobs.await(principal(ctx), jid, java.time.Duration.ofSeconds(wait)));
                });
    }
}

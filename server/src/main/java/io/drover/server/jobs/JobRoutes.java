package io.drover.server.jobs;

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
import io.drover.server.http.Route.Shape;
import io.drover.server.keys.KeyStore;
import java.util.List;

/** Keys (like salt-key) and remote execution jobs. */
public final class JobRoutes {
    private final KeyStore keys;
    private final JobService jobs;

    public JobRoutes(KeyStore keys, JobService jobs) {
        this.keys = keys;
        this.jobs = jobs;
    }

    public void register(HttpApi api) {
        api.get(API + "/keys", Role.VIEWER, "List agent keys (?state=accepted|pending|rejected|denied)", MinionKey.class,
                Shape.LIST, ctx -> {
                    String state = ctx.queryParam("state");
                    if (state != null && !List.of(KeyStore.ACCEPTED, KeyStore.PENDING, KeyStore.REJECTED, KeyStore.DENIED)
                            .contains(state)) {
                        throw ApiException.invalid("state", "'" + state + "' is not accepted, pending, rejected or denied");
                    }
                    ctx.json(keys.list(state));
                });
        api.post(API + "/keys/{id}/accept", Role.ADMIN, "Accept an agent key", null, MinionKey.class, 200,
                ctx -> ctx.json(keys.setState(ctx.pathParam("id"), KeyStore.ACCEPTED)));
        api.post(API + "/keys/{id}/reject", Role.ADMIN, "Reject an agent key (rotates the session key)", null,
                MinionKey.class, 200, ctx -> ctx.json(keys.setState(ctx.pathParam("id"), KeyStore.REJECTED)));
        api.delete(API + "/keys/{id}", Role.ADMIN, "Delete an agent key (rotates the session key)",
                ctx -> keys.delete(ctx.pathParam("id")));
        api.post(API + "/jobs", Role.OPERATOR, "Run a function on the agents a target names", JobRequest.class,
                JobStarted.class, 201, ctx -> ctx.json(jobs.start(principal(ctx), Bodies.read(ctx, JobRequest.class))));
        api.get(API + "/jobs/{jid}", Role.VIEWER,
                "A job with its returns so far and the minions still missing; ?wait=S (up to 60) answers once every minion returned or after S seconds",
                JobResult.class, Shape.ONE, ctx -> {
                    String jid = ctx.pathParam("jid");
                    if (!jid.matches("\\d{20}")) {
                        throw ApiException.invalid("jid", "'" + jid + "' is not a 20-digit job id");
                    }
                    long wait = io.drover.server.http.Params.bounded(ctx, "wait", 0, 0, 60);
                    ctx.json(jobs.await(jid, java.time.Duration.ofSeconds(wait)));
                });
    }
}

package io.drover.server.plans;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.auth.Role;
import io.drover.model.plans.PlanRequest;
import io.drover.model.plans.PlanRun;
import io.drover.model.plans.PlanStarted;
import io.drover.model.plans.PlanSummary;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;
import java.time.Duration;

/** Execution plans: run one on a target, read one with its per-host results and log lines, list them. */
public final class PlanRoutes {
    private final ExecutionPlans plans;

    public PlanRoutes(ExecutionPlans plans) {
        this.plans = plans;
    }

    public void register(HttpApi api) {
        api.post(API + "/plans", Role.OPERATOR, Scope.BUSINESS,
                "Run an execution plan (unified agent format, FormatVersion 2.0.0–2.2.0) on the agents a target names",
                PlanRequest.class, PlanStarted.class, 202,
                ctx -> ctx.json(plans.submit(principal(ctx), Bodies.read(ctx, PlanRequest.class))));
        api.get(API + "/plans", Role.VIEWER, Scope.BUSINESS, "The newest execution plans (?limit=N, up to 1000)", PlanSummary.class,
                Shape.LIST, ctx -> ctx.json(plans.list(principal(ctx), (int) Params.bounded(ctx, "limit", 100, 1, 1000))));
        api.get(API + "/plans/{id}", Role.VIEWER, Scope.BUSINESS,
                "An execution plan with its per-host results and log lines; ?wait=S (up to 60) answers once every host answered or after S seconds",
                PlanRun.class, Shape.ONE, ctx -> ctx.json(plans.get(principal(ctx), ctx.pathParam("id"),
                        Duration.ofSeconds(Params.bounded(ctx, "wait", 0, 0, 60)))));
    }
}

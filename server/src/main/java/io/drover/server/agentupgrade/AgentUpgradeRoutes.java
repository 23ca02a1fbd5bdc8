package io.drover.server.agentupgrade;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.agentupgrade.AgentUpgradeRequest;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import io.drover.model.auth.Role;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.http.Scope;

/** Fleet upgrades through the running agents: start one, list them, follow one, cancel one. */
public final class AgentUpgradeRoutes {
    private final AgentUpgradeService upgrades;

    public AgentUpgradeRoutes(AgentUpgradeService upgrades) {
        this.upgrades = upgrades;
    }

    public void register(HttpApi api) {
        api.post(API + "/agent-upgrades", Role.OPERATOR, Scope.BUSINESS,
                "Upgrade the agents a target names (all on hosts of the business of the body) to an agent package version, "
                        + "in batches; stops before the next batch once failed / attempted passes max_failure_ratio",
                AgentUpgradeRequest.class, AgentUpgradeTask.class, 202,
                ctx -> ctx.json(upgrades.start(principal(ctx), Bodies.read(ctx, AgentUpgradeRequest.class))));
        api.get(API + "/agent-upgrades", Role.VIEWER, Scope.BUSINESS, "List agent upgrades, newest first (without agents)",
                AgentUpgradeTask.class, Shape.LIST, ctx -> ctx.json(upgrades.list(principal(ctx))));
        api.get(API + "/agent-upgrades/{id}", Role.VIEWER, Scope.BUSINESS, "One agent upgrade with each agent's batch and state",
                AgentUpgradeTask.class, Shape.ONE, ctx -> ctx.json(upgrades.get(principal(ctx), Params.pathId(ctx, "id"))));
        api.post(API + "/agent-upgrades/{id}/cancel", Role.OPERATOR, Scope.BUSINESS, "Cancel a running agent upgrade: no "
                        + "further batch starts (the one under way runs to its end); its agents not started end not_started and "
                        + "the upgrade cancelled. 409 when it is not running",
                null, AgentUpgradeTask.class, 202, ctx -> ctx.json(upgrades.cancel(principal(ctx), Params.pathId(ctx, "id"))));
    }
}

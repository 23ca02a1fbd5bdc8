package io.drover.server.subscriptions;

import static io.drover.server.http.HttpApi.API;
import static io.drover.server.http.HttpApi.principal;

import io.drover.model.auth.Role;
import io.drover.model.subscriptions.InstanceStatus;
import io.drover.model.subscriptions.ChangePlanView;
import io.drover.model.subscriptions.RunRequest;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.server.http.Bodies;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route.Shape;
import io.drover.server.inventory.InventoryService;
import io.javalin.http.Context;
import java.util.Map;

/** Subscriptions, their plans, runs and tasks over REST (docs/api.md). */
public final class SubscriptionRoutes {
    private final SubscriptionService subscriptions;
    private final InventoryService inventory;

    public SubscriptionRoutes(SubscriptionService subscriptions, InventoryService inventory) {
        this.subscriptions = subscriptions;
        this.inventory = inventory;
    }

    public void register(HttpApi api) {
        String base = API + "/subscriptions";
        api.post(base, Role.OPERATOR, Scope.BUSINESS, "Create a subscription (NodeMan-style body); runs it unless run_immediately is false",
                SubscriptionSpec.class, io.drover.model.subscriptions.SubscriptionStarted.class, 201,
                ctx -> ctx.json(subscriptions.create(principal(ctx), Bodies.read(ctx, SubscriptionSpec.class))));
        api.get(base, Role.VIEWER, Scope.BUSINESS, "List subscriptions (?bk_biz_id=, ?plugin=)", SubscriptionInfo.class, Shape.LIST,
                ctx -> ctx.json(subscriptions.list(principal(ctx), Params.queryId(ctx, "bk_biz_id"), ctx.queryParam("plugin"))));
        api.get(base + "/{id}", Role.VIEWER, Scope.BUSINESS, "One subscription", SubscriptionInfo.class, Shape.ONE,
                ctx -> ctx.json(subscriptions.get(principal(ctx), id(ctx))));
        api.put(base + "/{id}", Role.OPERATOR, Scope.BUSINESS,
                "Change name, scope or steps (target_hosts and object_type are fixed: 409); plans and runs at once",
                SubscriptionSpec.class, io.drover.model.subscriptions.SubscriptionStarted.class,
                ctx -> ctx.json(subscriptions.update(principal(ctx), id(ctx), Bodies.read(ctx, SubscriptionSpec.class))));
        api.delete(base + "/{id}", Role.OPERATOR, Scope.BUSINESS,
                "Delete: uninstalls from every instance first (202 with the task), or ?keep_plugins=true to detach at once",
                ctx -> {
                    io.drover.model.subscriptions.SubscriptionStarted started = subscriptions.delete(principal(ctx), id(ctx), Params.flag(ctx, "keep_plugins"));
                    if (started.taskId() != null) {
                        ctx.status(202).json(started);
                    }
                });
        api.post(base + "/{id}/enable", Role.OPERATOR, Scope.BUSINESS, "Enable: start plugins on every instance, automatic runs on",
                null, io.drover.model.subscriptions.SubscriptionStarted.class, 200,
                ctx -> ctx.json(subscriptions.setEnabled(principal(ctx), id(ctx), true)));
        api.post(base + "/{id}/disable", Role.OPERATOR, Scope.BUSINESS, "Disable: stop plugins on every instance, automatic runs off",
                null, io.drover.model.subscriptions.SubscriptionStarted.class, 200,
                ctx -> ctx.json(subscriptions.setEnabled(principal(ctx), id(ctx), false)));
        api.get(base + "/{id}/plan", Role.VIEWER, Scope.BUSINESS, "Preview the plan: per instance and step the action and its reason",
                ChangePlanView.class, Shape.ONE, ctx -> ctx.json(subscriptions.plan(principal(ctx), id(ctx))));
        api.post(base + "/{id}/plan", Role.VIEWER, Scope.BUSINESS, "Preview the plan an update to this body would run, without saving it",
                SubscriptionSpec.class, ChangePlanView.class, 200,
                ctx -> ctx.json(subscriptions.planProposed(principal(ctx), id(ctx), Bodies.read(ctx, SubscriptionSpec.class))));
        api.post(base + "/{id}/run", Role.OPERATOR, Scope.BUSINESS,
                "Run the plan; or {actions: {step: ACTION}, instance_ids: [...]} for a partial run",
                RunRequest.class, io.drover.model.subscriptions.SubscriptionStarted.class, 200,
                ctx -> ctx.json(subscriptions.runNow(principal(ctx), id(ctx), optionalBody(ctx))));
        api.post(base + "/{id}/retry", Role.OPERATOR, Scope.BUSINESS, "Retry the failed instances of the last task (or {instance_ids})",
                RunRequest.class, io.drover.model.subscriptions.SubscriptionStarted.class, 200, ctx -> {
                    RunRequest body = optionalBody(ctx);
                    ctx.json(subscriptions.retry(principal(ctx), id(ctx), body == null ? null : body.instanceIds()));
                });
        api.post(base + "/{id}/revoke", Role.OPERATOR, Scope.BUSINESS, "Revoke the running task", null, TaskInfo.class, 200,
                ctx -> ctx.json(subscriptions.revoke(principal(ctx), id(ctx))));
        api.get(base + "/{id}/instances", Role.VIEWER, Scope.BUSINESS, "Per instance: status, deployed plugins and versions, last task",
                InstanceStatus.class, Shape.LIST, ctx -> ctx.json(subscriptions.instances(principal(ctx), id(ctx))));
        api.get(base + "/{id}/statistics", Role.VIEWER, Scope.BUSINESS, "Instances by status and deployed copies by version", io.drover.model.subscriptions.SubscriptionStatistics.class,
                Shape.ONE, ctx -> ctx.json(subscriptions.statistics(principal(ctx), id(ctx))));
        api.get(base + "/{id}/tasks", Role.VIEWER, Scope.BUSINESS, "The subscription's tasks, newest first", TaskInfo.class, Shape.LIST,
                ctx -> ctx.json(subscriptions.tasks(principal(ctx), id(ctx))));
        api.get(API + "/tasks/{id}", Role.VIEWER, Scope.BUSINESS, "A task: instances → steps → sub-steps with status, times and logs",
                TaskInfo.class, Shape.ONE, ctx -> ctx.json(subscriptions.task(principal(ctx), id(ctx))));
        api.get(API + "/hosts/{id}/plugins", Role.VIEWER, Scope.BUSINESS, "What subscriptions deployed on a host", io.drover.model.subscriptions.HostPlugin.class, Shape.LIST,
                ctx -> {
                    inventory.host(principal(ctx), id(ctx));
                    ctx.json(subscriptions.hostPlugins(principal(ctx), id(ctx)));
                });
    }

    private static long id(Context ctx) {
        return Params.pathId(ctx, "id");
    }

    private static RunRequest optionalBody(Context ctx) {
        return Bodies.readOptional(ctx, RunRequest.class);
    }
}

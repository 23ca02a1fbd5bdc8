package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.model.Json;
import io.drover.model.subscriptions.InstanceStatus;
import io.drover.model.subscriptions.ChangePlanView;
import io.drover.model.subscriptions.RunRequest;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.SubscriptionInfo;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionStarted;
import io.drover.model.subscriptions.SubscriptionStatistics;
import io.drover.model.subscriptions.TaskInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover sub ...}: subscriptions: create, plan, run and watch them converge. */
@Command(name = "sub", description = "Subscriptions: deploy plugins onto CMDB targets and keep them converged.",
        subcommands = {SubCommand.Create.class, SubCommand.ListSubs.class, SubCommand.Show.class, SubCommand.Plan.class,
                SubCommand.Update.class, SubCommand.Run.class, SubCommand.Retry.class, SubCommand.Revoke.class,
                SubCommand.Enable.class, SubCommand.Disable.class, SubCommand.Delete.class, SubCommand.Instances.class,
                SubCommand.Stats.class, SubCommand.Tasks.class})
public final class SubCommand {
    static final List<Column<SubscriptionInfo>> COLUMNS = List.of(Column.of("ID", SubscriptionInfo::id),
            Column.of("NAME", SubscriptionInfo::name), Column.of("BIZ", SubscriptionInfo::bkBizId),
            Column.of("OBJECT", SubscriptionInfo::objectType), Column.of("NODES", SubscriptionInfo::nodeType),
            Column.of("ENABLED", SubscriptionInfo::enabled), new Column<>("PLUGINS", SubCommand::plugins));
    static final List<Column<InstanceStatus>> INSTANCES = List.of(Column.of("INSTANCE", InstanceStatus::instanceId),
            Column.of("STATUS", InstanceStatus::status), new Column<>("DEPLOYED", n -> {
                List<String> parts = new ArrayList<>();
                for (InstanceStatus.Deployed d : n.deployed() == null ? List.<InstanceStatus.Deployed>of() : n.deployed()) {
                    parts.add(d.plugin() + " " + d.version() + " " + Output.text(d.status()) + (d.port() != null ? " :" + d.port() : ""));
                }
                return String.join(", ", parts);
            }), Column.of("LAST TASK", InstanceStatus::lastTaskId), Column.of("TASK STATUS", InstanceStatus::lastTaskStatus));
    static final List<Column<TaskInfo>> TASKS = List.of(Column.of("TASK", TaskInfo::id), Column.of("STATUS", TaskInfo::status),
            Column.of("TRIGGER", TaskInfo::trigger), Column.of("ACTOR", TaskInfo::actor), Column.of("STARTED", TaskInfo::startedAt),
            Column.of("FINISHED", TaskInfo::finishedAt), new Column<>("INSTANCES", n -> Output.oneLine(n.counts())));

    /** The plugins a subscription's steps deploy, comma-separated. */
    static String plugins(SubscriptionInfo subscription) {
        List<String> names = new ArrayList<>();
        if (subscription.spec() != null) {
            for (SubscriptionSpec.Step step : subscription.spec().steps()) {
                if (step.config() != null && step.config().pluginName() != null) {
                    names.add(step.config().pluginName());
                }
            }
        }
        return String.join(", ", names);
    }

    static Object readSpec(Path file) {
        try {
            return Json.yaml().readValue(file.toFile(), Object.class);
        } catch (IOException e) {
            throw new CliException("cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Prints what a change started and, with --watch, follows its task. */
    static void started(ClientOptions client, SubscriptionStarted started, String what, boolean watch) {
        PrintWriter out = client.out();
        SubscriptionInfo sub = started.subscription();
        if (client.output().format() != Output.Format.table && !watch) {
            client.output().printObject(started);
            return;
        }
        out.printf("subscription %d '%s' %s%n", sub.id(), sub.name(), what);
        String note = started.note() == null ? "" : started.note();
        if (started.taskId() != null) {
            long task = started.taskId();
            out.printf("task %d started%s%n", task, watch ? "" : ": drover task show " + task + " --watch");
            if (!note.isEmpty()) {
                out.println("note: " + note);
            }
            if (watch) {
                TaskInfo result = TaskWatcher.watch(client.client(), out, task);
                if (result.status() == RunStatus.FAILED) {
                    throw new CliException("task " + task + " failed; see drover task show " + task);
                }
            }
        } else {
            out.println(note.startsWith("not run") ? "not run (run_immediately is false): preview with drover sub plan "
                    + sub.id() + ", run with drover sub run " + sub.id()
                    : note.isEmpty() ? "nothing to do: every instance is as planned" : note);
        }
    }

    @Command(name = "create", description = "Create a subscription from a YAML/JSON file; it runs at once unless run_immediately is false.")
    static final class Create implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE") Path file;
        @Option(names = "--watch", description = "Follow the task until it ends.") boolean watch;

        @Override
        public Integer call() {
            started(client, client.client().post("/api/v1/subscriptions", readSpec(file), SubscriptionStarted.class), "created", watch);
            return 0;
        }
    }

    @Command(name = "list", description = "List subscriptions.")
    static final class ListSubs implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--biz", paramLabel = "ID") Long biz;
        @Option(names = "--plugin", paramLabel = "NAME") String plugin;

        @Override
        public Integer call() {
            List<SubscriptionInfo> list = client.client().get("/api/v1/subscriptions"
                    + ApiClient.query(ApiClient.params("bk_biz_id", biz, "plugin", plugin)), new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "show", description = "Show a subscription.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/subscriptions/" + id, SubscriptionInfo.class));
            return 0;
        }
    }

    @Command(name = "plan", description = "Preview what a run would do (or, with -f, what an update to FILE would do); changes nothing.")
    static final class Plan implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "A changed spec to preview.") Path file;

        @Override
        public Integer call() {
            ChangePlanView plan = file == null ? client.client().get("/api/v1/subscriptions/" + id + "/plan", ChangePlanView.class)
                    : client.client().post("/api/v1/subscriptions/" + id + "/plan", readSpec(file), ChangePlanView.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(plan);
                return 0;
            }
            PrintWriter out = client.out();
            for (ChangePlanView.InstancePlan instance : plan.instances() == null ? List.<ChangePlanView.InstancePlan>of() : plan.instances()) {
                out.printf("%s%s%n", instance.instanceId(), instance.host() != null ? " (" + instance.host() + ")" : "");
                for (ChangePlanView.StepPlan step : instance.steps() == null ? List.<ChangePlanView.StepPlan>of() : instance.steps()) {
                    out.printf("  %-12s %-11s %-20s %s%s%n", step.stepId(), step.action(), step.reason(),
                            step.why() == null ? "" : step.why(), step.detail() != null ? ": " + step.detail() : "");
                }
            }
            (plan.missing() == null ? List.<String>of() : plan.missing())
                    .forEach(m -> out.println("warning: " + m + " does not exist"));
            Map<String, Integer> t = plan.totals() == null ? Map.of() : plan.totals();
            out.printf("Plan: %d to install, %d to uninstall, %d to push config, %d to start, %d to stop, %d unchanged, "
                            + "%d skipped, %d failing.%n", t.getOrDefault("INSTALL", 0), t.getOrDefault("UNINSTALL", 0),
                    t.getOrDefault("PUSH_CONFIG", 0), t.getOrDefault("START", 0), t.getOrDefault("STOP", 0),
                    t.getOrDefault("NOT_CHANGE", 0), t.getOrDefault("SKIP", 0), t.getOrDefault("FAIL", 0));
            return 0;
        }
    }

    @Command(name = "update", description = "Change a subscription's name, scope or steps from a file; it runs at once.")
    static final class Update implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE") Path file;
        @Option(names = "--watch") boolean watch;

        @Override
        public Integer call() {
            started(client, client.client().put("/api/v1/subscriptions/" + id, readSpec(file), SubscriptionStarted.class), "updated", watch);
            return 0;
        }
    }

    @Command(name = "run", description = "Run the plan now; or only given actions (--action STEP=ACTION) on given instances.")
    static final class Run implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = "--action", paramLabel = "STEP=ACTION") Map<String, String> actions;
        @Option(names = "--instance", paramLabel = "INSTANCE_ID") List<String> instances;
        @Option(names = "--watch") boolean watch;

        @Override
        public Integer call() {
            started(client, client.client().post("/api/v1/subscriptions/" + id + "/run", new RunRequest(actions, instances),
                    SubscriptionStarted.class), "run", watch);
            return 0;
        }
    }

    @Command(name = "retry", description = "Retry the instances that failed in the last task (or --instance ones).")
    static final class Retry implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = "--instance", paramLabel = "INSTANCE_ID") List<String> instances;
        @Option(names = "--watch") boolean watch;

        @Override
        public Integer call() {
            started(client, client.client().post("/api/v1/subscriptions/" + id + "/retry", new RunRequest(null, instances),
                    SubscriptionStarted.class), "retried", watch);
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke the running task.")
    static final class Revoke implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            TaskInfo task = client.client().postNoBody("/api/v1/subscriptions/" + id + "/revoke", TaskInfo.class);
            client.out().println("task " + task.id() + " revoked: instances not started are skipped");
            return 0;
        }
    }

    /** Enable and disable: the same request to {@code /subscriptions/ID/<action>}. */
    abstract static class Switch implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = "--watch", description = "Follow the task until it ends.") boolean watch;

        abstract String action();

        @Override
        public Integer call() {
            started(client, client.client().postNoBody("/api/v1/subscriptions/" + id + "/" + action(), SubscriptionStarted.class),
                    action() + "d", watch);
            return 0;
        }
    }

    @Command(name = "enable", description = "Enable: start plugins everywhere and resume automatic runs.")
    static final class Enable extends Switch {
        @Override
        String action() {
            return "enable";
        }
    }

    @Command(name = "disable", description = "Disable: stop plugins everywhere and pause automatic runs.")
    static final class Disable extends Switch {
        @Override
        String action() {
            return "disable";
        }
    }

    @Command(name = "delete", description = "Delete: uninstall from every instance first, or --keep-plugins to detach.")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = "--keep-plugins", description = "Leave what is deployed in place and forget it.") boolean keep;
        @Option(names = "--watch") boolean watch;

        @Override
        public Integer call() {
            SubscriptionStarted started = client.client().delete("/api/v1/subscriptions/" + id + (keep ? "?keep_plugins=true" : ""),
                    SubscriptionStarted.class);
            if (started == null || started.taskId() == null) {
                client.out().println("subscription " + id + " deleted");
                return 0;
            }
            // The server deletes the subscription once the task succeeds; reading its instances after the task may
            // or may not find it still there.
            try {
                started(client, started, "is uninstalling; it is deleted when the task succeeds", watch);
            } catch (CliException e) {
                if (!watch || !e.getMessage().contains("[404 not_found]")) {
                    throw e;
                }
            }
            if (watch) {
                client.out().println("uninstalled everywhere; subscription " + id + " deleted");
            }
            return 0;
        }
    }

    @Command(name = "instances", description = "Per instance: status, deployed plugins, versions and ports, last task.")
    static final class Instances implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            List<InstanceStatus> list = client.client().get("/api/v1/subscriptions/" + id + "/instances", new TypeReference<>() { });
            client.output().print(list, list, INSTANCES);
            return 0;
        }
    }

    @Command(name = "stats", description = "Instances by status and deployed copies by version.")
    static final class Stats implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/subscriptions/" + id + "/statistics", SubscriptionStatistics.class));
            return 0;
        }
    }

    @Command(name = "tasks", description = "The subscription's tasks, newest first.")
    static final class Tasks implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            List<TaskInfo> list = client.client().get("/api/v1/subscriptions/" + id + "/tasks", new TypeReference<>() { });
            client.output().print(list, list, TASKS);
            return 0;
        }
    }
}

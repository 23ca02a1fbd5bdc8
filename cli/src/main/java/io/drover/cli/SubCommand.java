package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import io.drover.model.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    static final List<Column> COLUMNS = List.of(Column.of("ID", "id"), Column.of("NAME", "name"), Column.of("BIZ", "bk_biz_id"),
            Column.of("OBJECT", "object_type"), Column.of("NODES", "node_type"), Column.of("ENABLED", "enabled"),
            new Column("PLUGINS", n -> String.join(", ", n.path("spec").path("steps").findValuesAsText("plugin_name"))));
    static final List<Column> INSTANCES = List.of(Column.of("INSTANCE", "instance_id"), Column.of("STATUS", "status"),
            new Column("DEPLOYED", n -> {
                List<String> parts = new ArrayList<>();
                n.path("deployed").forEach(d -> parts.add(d.path("plugin").asText() + " " + d.path("version").asText() + " "
                        + d.path("status").asText() + (d.hasNonNull("port") ? " :" + d.path("port").asInt() : "")));
                return String.join(", ", parts);
            }), Column.of("LAST TASK", "last_task_id"), Column.of("TASK STATUS", "last_task_status"));
    static final List<Column> TASKS = List.of(Column.of("TASK", "id"), Column.of("STATUS", "status"),
            Column.of("TRIGGER", "trigger"), Column.of("ACTOR", "actor"), Column.of("STARTED", "started_at"),
            Column.of("FINISHED", "finished_at"), new Column("INSTANCES", n -> n.path("counts").toString()));

    static Object readSpec(Path file) {
        try {
            return Json.yaml().readValue(file.toFile(), Object.class);
        } catch (IOException e) {
            throw new CliException("cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Prints what a change started and, with --watch, follows its task. */
    static void started(ClientOptions client, JsonNode started, String what, boolean watch) {
        PrintWriter out = client.out();
        JsonNode sub = started.path("subscription");
        if (client.output().format() != Output.Format.table && !watch) {
            client.output().printObject(started);
            return;
        }
        out.printf("subscription %d '%s' %s%n", sub.path("id").asLong(), sub.path("name").asText(), what);
        if (started.hasNonNull("task_id")) {
            long task = started.path("task_id").asLong();
            out.printf("task %d started%s%n", task, watch ? "" : ": drover task show " + task + " --watch");
            if (!started.path("note").asText("").isEmpty()) {
                out.println("note: " + started.path("note").asText());
            }
            if (watch) {
                JsonNode result = TaskWatcher.watch(client.client(), out, task);
                if (result.path("status").asText().equals("FAILED")) {
                    throw new CliException("task " + task + " failed; see drover task show " + task);
                }
            }
        } else {
            String note = started.path("note").asText("");
            out.println(note.startsWith("not run") ? "not run (run_immediately is false): preview with drover sub plan "
                    + sub.path("id").asLong() + ", run with drover sub run " + sub.path("id").asLong()
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
            started(client, client.client().post("/api/v1/subscriptions", readSpec(file)), "created", watch);
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
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("bk_biz_id", biz);
            q.put("plugin", plugin);
            JsonNode list = client.client().get("/api/v1/subscriptions" + ApiClient.query(q));
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
            client.output().printObject(client.client().get("/api/v1/subscriptions/" + id));
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
            JsonNode plan = file == null ? client.client().get("/api/v1/subscriptions/" + id + "/plan")
                    : client.client().post("/api/v1/subscriptions/" + id + "/plan", readSpec(file));
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(plan);
                return 0;
            }
            PrintWriter out = client.out();
            for (JsonNode instance : plan.path("instances")) {
                out.printf("%s%s%n", instance.path("instance_id").asText(),
                        instance.hasNonNull("host") ? " (" + instance.path("host").asText() + ")" : "");
                for (JsonNode step : instance.path("steps")) {
                    out.printf("  %-12s %-11s %-20s %s%s%n", step.path("step_id").asText(), step.path("action").asText(),
                            step.path("reason").asText(), step.path("why").asText(),
                            step.hasNonNull("detail") ? ": " + step.path("detail").asText() : "");
                }
            }
            plan.path("missing").forEach(m -> out.println("warning: " + m.asText() + " does not exist"));
            JsonNode t = plan.path("totals");
            out.printf("Plan: %d to install, %d to uninstall, %d to push config, %d to start, %d to stop, %d unchanged, "
                            + "%d skipped, %d failing.%n", t.path("INSTALL").asInt(), t.path("UNINSTALL").asInt(),
                    t.path("PUSH_CONFIG").asInt(), t.path("START").asInt(), t.path("STOP").asInt(), t.path("NOT_CHANGE").asInt(),
                    t.path("SKIP").asInt(), t.path("FAIL").asInt());
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
            started(client, client.client().put("/api/v1/subscriptions/" + id, readSpec(file)), "updated", watch);
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
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("actions", actions);
            body.put("instance_ids", instances);
            started(client, client.client().post("/api/v1/subscriptions/" + id + "/run", body), "run", watch);
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
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("instance_ids", instances);
            started(client, client.client().post("/api/v1/subscriptions/" + id + "/retry", body), "retried", watch);
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke the running task.")
    static final class Revoke implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            JsonNode task = client.client().post("/api/v1/subscriptions/" + id + "/revoke", Map.of());
            client.out().println("task " + task.path("id").asLong() + " revoked: instances not started are skipped");
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
            started(client, client.client().post("/api/v1/subscriptions/" + id + "/" + action(), Map.of()), action() + "d", watch);
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
            JsonNode started = client.client().delete("/api/v1/subscriptions/" + id + (keep ? "?keep_plugins=true" : ""));
            if (started == null || started.isMissingNode() || started.isNull() || !started.has("task_id")) {
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
            JsonNode list = client.client().get("/api/v1/subscriptions/" + id + "/instances");
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
            client.output().printObject(client.client().get("/api/v1/subscriptions/" + id + "/statistics"));
            return 0;
        }
    }

    @Command(name = "tasks", description = "The subscription's tasks, newest first.")
    static final class Tasks implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/subscriptions/" + id + "/tasks");
            client.output().print(list, list, TASKS);
            return 0;
        }
    }
}

package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover task show ID [--watch]}: a subscription task, its instances, steps and sub-steps. */
@Command(name = "task", description = "Subscription tasks.", subcommands = {TaskCommand.Show.class})
public final class TaskCommand {
    @Command(name = "show", description = "Show a task: instances, steps, sub-steps and their logs; --watch follows it.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;
        @Option(names = "--watch", description = "Show progress until the task ends.") boolean watch;
        @Option(names = "--logs", description = "Print every sub-step with its log lines.") boolean logs;

        @Override
        public Integer call() {
            if (watch) {
                TaskWatcher.watch(client.client(), client.out(), id);
                return 0;
            }
            JsonNode task = client.client().get("/api/v1/tasks/" + id);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(task);
                return 0;
            }
            var out = client.out();
            out.printf("task %d of subscription %d: %s (%s by %s)%n", task.path("id").asLong(),
                    task.path("subscription_id").asLong(), task.path("status").asText(), task.path("trigger").asText(),
                    task.path("actor").asText());
            out.print(Output.table(task.path("instances"), TaskWatcher.INSTANCES));
            if (logs) {
                for (JsonNode i : task.path("instances")) {
                    out.println(i.path("instance_id").asText());
                    for (JsonNode step : i.path("steps")) {
                        out.printf("  %s %s %s%n", step.path("step_id").asText(), step.path("action").asText(), step.path("status").asText());
                        for (JsonNode sub : step.path("sub_steps")) {
                            out.printf("    %-8s %s: %s%n", sub.path("status").asText(), sub.path("name").asText(),
                                    Output.text(sub.path("log")));
                        }
                    }
                }
            }
            return 0;
        }
    }
}

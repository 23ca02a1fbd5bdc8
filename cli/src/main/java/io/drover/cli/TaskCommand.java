package io.drover.cli;

import io.drover.model.subscriptions.TaskInfo;
import java.util.List;
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
            TaskInfo task = client.client().get("/api/v1/tasks/" + id, TaskInfo.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(task);
                return 0;
            }
            var out = client.out();
            out.printf("task %d of subscription %d: %s (%s by %s)%n", task.id(), task.subscriptionId(), Output.text(task.status()),
                    task.trigger(), task.actor());
            out.print(Output.table(TaskWatcher.instances(task), TaskWatcher.INSTANCES));
            if (logs) {
                for (TaskInfo.TaskInstance i : TaskWatcher.instances(task)) {
                    out.println(i.instanceId());
                    for (TaskInfo.StepRecord step : TaskWatcher.steps(i)) {
                        out.printf("  %s %s %s%n", step.stepId(), Output.text(step.action()), Output.text(step.status()));
                        for (TaskInfo.SubStep sub : step.subSteps() == null ? List.<TaskInfo.SubStep>of() : step.subSteps()) {
                            out.printf("    %-8s %s: %s%n", Output.text(sub.status()), sub.name(), Output.text(sub.log()));
                        }
                    }
                }
            }
            return 0;
        }
    }
}

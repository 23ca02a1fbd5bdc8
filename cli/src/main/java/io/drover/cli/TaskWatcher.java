package io.drover.cli;

import io.drover.model.subscriptions.ChangeAction;
import io.drover.model.subscriptions.RunStatus;
import io.drover.model.subscriptions.TaskInfo;
import io.drover.cli.Output.Column;
import java.io.PrintWriter;
import java.util.List;

/** Follows a task until it ends: a progress bar while it runs, then a summary table of its instances. */
final class TaskWatcher {
    static final List<Column<TaskInfo.TaskInstance>> INSTANCES = List.of(Column.of("INSTANCE", TaskInfo.TaskInstance::instanceId),
            Column.of("HOST", TaskInfo.TaskInstance::bkHostId), Column.of("STATUS", TaskInfo.TaskInstance::status),
            new Column<>("STEPS", TaskWatcher::stepsCell), Column.of("ERROR", TaskInfo.TaskInstance::error));
    private static final int WIDTH = 30;

    private TaskWatcher() {
    }

    static TaskInfo watch(ApiClient client, PrintWriter out, long taskId) {
        String last = "";
        while (true) {
            TaskInfo task = client.get("/api/v1/tasks/" + taskId, TaskInfo.class);
            int total = 0;
            int done = 0;
            for (var e : countsOf(task).entrySet()) {
                total += e.getValue();
                if (!List.of("PENDING", "RUNNING").contains(e.getKey())) {
                    done += e.getValue();
                }
            }
            String line = bar(done, total) + " " + done + "/" + total + " " + counts(task);
            if (!line.equals(last)) {
                out.println(line);
                out.flush();
                last = line;
            }
            if (task.status() != RunStatus.RUNNING) {
                out.println("task " + taskId + " " + Output.text(task.status()));
                out.print(Output.table(instances(task), INSTANCES));
                out.flush();
                return task;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException("interrupted; the task goes on: drover task show " + taskId + " --watch");
            }
        }
    }

    private static String bar(int done, int total) {
        int filled = total == 0 ? WIDTH : done * WIDTH / total;
        return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
    }

    private static java.util.Map<String, Integer> countsOf(TaskInfo task) {
        return task.counts() == null ? java.util.Map.of() : task.counts();
    }

    static List<TaskInfo.TaskInstance> instances(TaskInfo task) {
        return task.instances() == null ? List.of() : task.instances();
    }

    static List<TaskInfo.StepRecord> steps(TaskInfo.TaskInstance instance) {
        return instance.steps() == null ? List.of() : instance.steps();
    }

    private static String counts(TaskInfo task) {
        StringBuilder s = new StringBuilder("(");
        countsOf(task).forEach((status, n) -> s.append(s.length() > 1 ? ", " : "").append(n)
                .append(' ').append(status.toLowerCase(java.util.Locale.ROOT)));
        return s.append(')').toString();
    }

    private static String stepsCell(TaskInfo.TaskInstance instance) {
        StringBuilder s = new StringBuilder();
        for (TaskInfo.StepRecord step : steps(instance)) {
            if (step.status() != RunStatus.SKIPPED || step.action() != ChangeAction.NOT_CHANGE) {
                s.append(s.isEmpty() ? "" : ", ").append(step.stepId()).append(' ')
                        .append(Output.text(step.action())).append(' ').append(Output.text(step.status()));
            }
        }
        return s.toString();
    }
}

package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.io.PrintWriter;
import java.util.List;

/** Follows a task until it ends: a progress bar while it runs, then a summary table of its instances. */
final class TaskWatcher {
    static final List<Column> INSTANCES = List.of(Column.of("INSTANCE", "instance_id"), Column.of("HOST", "bk_host_id"),
            Column.of("STATUS", "status"), new Column("STEPS", TaskWatcher::steps), Column.of("ERROR", "error"));
    private static final int WIDTH = 30;

    private TaskWatcher() {
    }

    static JsonNode watch(ApiClient client, PrintWriter out, long taskId) {
        String last = "";
        while (true) {
            JsonNode task = client.get("/api/v1/tasks/" + taskId);
            int total = 0;
            int done = 0;
            for (var e : task.path("counts").properties()) {
                total += e.getValue().asInt();
                if (!List.of("PENDING", "RUNNING").contains(e.getKey())) {
                    done += e.getValue().asInt();
                }
            }
            String line = bar(done, total) + " " + done + "/" + total + " " + counts(task);
            if (!line.equals(last)) {
                out.println(line);
                out.flush();
                last = line;
            }
            if (!task.path("status").asText().equals("RUNNING")) {
                out.println("task " + taskId + " " + task.path("status").asText());
                out.print(Output.table(task.path("instances"), INSTANCES));
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

    private static String counts(JsonNode task) {
        StringBuilder s = new StringBuilder("(");
        task.path("counts").properties().forEach(e -> s.append(s.length() > 1 ? ", " : "").append(e.getValue().asInt())
                .append(' ').append(e.getKey().toLowerCase(java.util.Locale.ROOT)));
        return s.append(')').toString();
    }

    private static String steps(JsonNode instance) {
        StringBuilder s = new StringBuilder();
        for (JsonNode step : instance.path("steps")) {
            if (!step.path("status").asText().equals("SKIPPED") || !step.path("action").asText().equals("NOT_CHANGE")) {
                s.append(s.isEmpty() ? "" : ", ").append(step.path("step_id").asText()).append(' ')
                        .append(step.path("action").asText()).append(' ').append(step.path("status").asText());
            }
        }
        return s.toString();
    }
}

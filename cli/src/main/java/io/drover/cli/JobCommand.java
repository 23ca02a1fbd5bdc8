package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover job list|get|kill}: jobs, each agent's recorded state in them, and stopping them. */
@Command(name = "job", description = "Jobs: each agent's recorded state, returns read page by page, and kill.",
        subcommands = {JobCommand.ListJobs.class, JobCommand.Get.class, JobCommand.Kill.class})
public final class JobCommand {
    /** The largest page the server gives. */
    static final int MAX_PAGE = 5_000;

    private JobCommand() {
    }

    /** "returned=3 cancelled=1", from a map of state to count. */
    static String states(JsonNode counts) {
        StringBuilder sb = new StringBuilder();
        counts.properties().forEach(e -> sb.append(sb.isEmpty() ? "" : " ").append(e.getKey().toLowerCase(java.util.Locale.ROOT))
                .append('=').append(e.getValue().asInt()));
        return sb.toString();
    }

    @Command(name = "list", description = "Jobs, newest first, with how many agents are in each state.")
    static final class ListJobs implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--before", paramLabel = "JID", description = "Jobs older than this one (the next page).") String before;
        @Option(names = "--limit", description = "At most this many jobs (1 to 1000; default ${DEFAULT-VALUE}).") int limit = 50;

        @Override
        public Integer call() {
            JsonNode jobs = client.client().get("/api/v1/jobs" + ApiClient.query(ApiClient.params("before", before, "limit", limit)));
            client.output().print(jobs, jobs, List.of(Column.of("JID", "jid"), Column.of("FUN", "fun"), Column.of("TARGET", "tgt"),
                    Column.of("USER", "actor"), Column.of("CREATED", "created_at"), Column.of("AGENTS", "agents"),
                    new Column("STATES", row -> states(row.path("states")))));
            return 0;
        }
    }

    @Command(name = "get", description = "A job's agents in id order, each with its recorded state and return, read from the"
            + " server a page at a time (constant memory for any number of agents); then how many are in each state."
            + " --output json prints one JSON object per agent and line.")
    static final class Get implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "JID") String jid;
        @Option(names = "--page-size", description = "Agents per request (1 to 5000; default ${DEFAULT-VALUE}).") int pageSize = 500;

        @Override
        public Integer call() {
            if (pageSize < 1 || pageSize > MAX_PAGE) {
                throw new CliException("--page-size must be 1 to " + MAX_PAGE);
            }
            Map<String, Integer> counts = new TreeMap<>();
            boolean lines = client.output().format() != Output.Format.table;
            var out = client.out();
            if (!lines) {
                out.printf("%-32s  %-10s  %-7s  %s%n", "ID", "STATE", "RETCODE", "RETURN");
            }
            String after = null;
            int agents = 0;
            do {
                JsonNode page = client.client().get("/api/v1/jobs/" + jid + "/returns"
                        + ApiClient.query(ApiClient.params("after", after, "limit", pageSize)));
                for (JsonNode agent : page.path("agents")) {
                    agents++;
                    String state = agent.path("state").asText();
                    counts.merge(state.toLowerCase(java.util.Locale.ROOT), 1, Integer::sum);
                    if (lines) {
                        out.println(agent.toString());
                        continue;
                    }
                    JsonNode ret = agent.path("ret");
                    String value = ret.isMissingNode() || ret.isNull() ? "" : ret.path("ret").isTextual() ? ret.path("ret").asText()
                            : ret.path("ret").toString();
                    out.printf("%-32s  %-10s  %-7s  %s%n", Output.printable(agent.path("id").asText()), state.toLowerCase(java.util.Locale.ROOT),
                            ret.isMissingNode() || ret.isNull() ? "" : ret.path("retcode").asText(),
                            Output.printable(value.length() > 200 ? value.substring(0, 200) + "…" : value));
                }
                out.flush();
                after = page.path("next").isTextual() ? page.path("next").asText() : null;
            } while (after != null);
            if (!lines) {
                StringBuilder summary = new StringBuilder();
                counts.forEach((state, n) -> summary.append(' ').append(state).append('=').append(n));
                out.println("job " + jid + ": " + agents + " agent(s):" + summary);
                out.flush();
            }
            return 0;
        }
    }

    @Command(name = "kill", description = "Stop a job on its agents (all, or those given with --target): the job's processes"
            + " are killed (saltutil.kill_job; a Drover agent kills the job's process groups) and each agent still working"
            + " on it is recorded cancelled.")
    static final class Kill implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "JID") String jid;
        @Option(names = "--target", paramLabel = "ID", split = ",", description = "Only these agents (repeat, or comma-separated).")
        List<String> targets;

        @Override
        public Integer call() {
            JsonNode done = client.client().post("/api/v1/jobs/" + jid + "/cancel",
                    targets == null ? Map.of() : Map.of("targets", targets));
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(done);
                return 0;
            }
            client.out().println("job " + jid + ": cancelled on " + done.path("cancelled").asInt() + " agent(s), "
                    + done.path("finished").asInt() + " had finished"
                    + (done.path("kill_jid").isTextual() ? " (kill job " + done.path("kill_jid").asText() + ")" : ""));
            client.out().flush();
            return 0;
        }
    }
}

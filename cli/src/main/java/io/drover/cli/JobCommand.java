package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.model.jobs.AgentJob;
import io.drover.model.jobs.AgentJobPage;
import io.drover.model.jobs.AgentJobState;
import io.drover.model.jobs.JobCancelRequest;
import io.drover.model.jobs.JobCancelled;
import io.drover.model.jobs.JobResult;
import io.drover.model.jobs.JobSummary;
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
    static String states(Map<AgentJobState, Integer> counts) {
        StringBuilder sb = new StringBuilder();
        if (counts != null) {
            counts.forEach((state, n) -> sb.append(sb.isEmpty() ? "" : " ").append(state.name().toLowerCase(java.util.Locale.ROOT))
                    .append('=').append(n));
        }
        return sb.toString();
    }

    @Command(name = "list", description = "Jobs, newest first, with how many agents are in each state.")
    static final class ListJobs implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--before", paramLabel = "JID", description = "Jobs older than this one (the next page).") String before;
        @Option(names = "--limit", description = "At most this many jobs (1 to 1000; default ${DEFAULT-VALUE}).") int limit = 50;

        @Override
        public Integer call() {
            List<JobSummary> jobs = client.client().get("/api/v1/jobs" + ApiClient.query(ApiClient.params("before", before,
                    "limit", limit)), new TypeReference<>() { });
            client.output().print(jobs, jobs, List.of(Column.of("JID", JobSummary::jid), Column.of("FUN", JobSummary::fun),
                    Column.of("TARGET", JobSummary::tgt), Column.of("USER", JobSummary::actor),
                    Column.of("CREATED", JobSummary::createdAt), Column.of("AGENTS", JobSummary::agents),
                    new Column<>("STATES", row -> states(row.states()))));
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
                AgentJobPage page = client.client().get("/api/v1/jobs/" + jid + "/returns"
                        + ApiClient.query(ApiClient.params("after", after, "limit", pageSize)), AgentJobPage.class);
                for (AgentJob agent : page.agents()) {
                    agents++;
                    String state = agent.state() == null ? "" : agent.state().name().toLowerCase(java.util.Locale.ROOT);
                    counts.merge(state, 1, Integer::sum);
                    if (lines) {
                        out.println(Output.oneLine(agent));
                        continue;
                    }
                    JobResult.Return ret = agent.ret();
                    String value = ret == null ? "" : ret.ret() instanceof String text ? text : Output.oneLine(ret.ret());
                    out.printf("%-32s  %-10s  %-7s  %s%n", Output.printable(String.valueOf(agent.id())), state,
                            ret == null ? "" : Integer.toString(ret.retcode()),
                            Output.printable(value.length() > 200 ? value.substring(0, 200) + "…" : value));
                }
                out.flush();
                after = page.next();
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
            JobCancelled done = client.client().post("/api/v1/jobs/" + jid + "/cancel", new JobCancelRequest(targets),
                    JobCancelled.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(done);
                return 0;
            }
            client.out().println("job " + jid + ": cancelled on " + done.cancelled() + " agent(s), "
                    + done.finished() + " had finished"
                    + (done.killJid() != null ? " (kill job " + done.killJid() + ")" : ""));
            client.out().flush();
            return 0;
        }
    }
}

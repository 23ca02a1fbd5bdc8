package io.drover.cli;

import io.drover.model.agentupgrade.UpgradeHostState;
import io.drover.model.agentupgrade.RolloutStatus;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.model.agentupgrade.AgentUpgradeHost;
import io.drover.model.agentupgrade.AgentUpgradeRequest;
import io.drover.model.agentupgrade.AgentUpgradeTask;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover agent upgrade} and {@code drover agent upgrades}: fleet upgrades through the running agents. */
final class AgentUpgradeCommand {
    static final List<Column<AgentUpgradeTask>> TASKS = List.of(Column.of("ID", AgentUpgradeTask::id),
            Column.of("BIZ", AgentUpgradeTask::bkBizId), Column.of("STATUS", AgentUpgradeTask::status),
            Column.of("VERSION", AgentUpgradeTask::version), Column.of("TARGET", AgentUpgradeTask::tgt),
            Column.of("BATCH", AgentUpgradeTask::batchSize), Column.of("AGENTS", AgentUpgradeTask::total),
            Column.of("OK", AgentUpgradeTask::succeeded), Column.of("SKIPPED", AgentUpgradeTask::skipped),
            Column.of("FAILED", AgentUpgradeTask::failed), Column.of("NOT STARTED", AgentUpgradeTask::notStarted),
            Column.of("BY", AgentUpgradeTask::createdBy), Column.of("CREATED", AgentUpgradeTask::createdAt));
    static final List<Column<AgentUpgradeHost>> HOSTS = List.of(Column.of("BATCH", AgentUpgradeHost::batch),
            Column.of("AGENT", AgentUpgradeHost::agentId), Column.of("STATUS", AgentUpgradeHost::status),
            Column.of("ARCH", AgentUpgradeHost::arch), Column.of("FROM", AgentUpgradeHost::fromVersion),
            Column.of("VERSION", AgentUpgradeHost::version), Column.of("ERROR", AgentUpgradeHost::error));

    private AgentUpgradeCommand() {
    }

    @Command(name = "upgrade", description = "Upgrade the agents a target names to an agent package version through the "
            + "running agents, in batches: each agent fetches the package for its architecture from the server, checks it "
            + "and hands over to its installer, which swaps it in, restarts it (keeping its key and journal) and rolls back "
            + "when the new version does not sign in. The rollout stops before its next batch once failed / attempted "
            + "agents passes --max-failure-ratio. An agent that runs a newer version fails unless --allow-downgrade. "
            + "Exit status 1 when it stopped, was cancelled or any agent failed.")
    static final class Upgrade implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--target", required = true, paramLabel = "TARGET", description = "The agents, as drover run's target (a glob by default).")
        String target;
        @ArgGroup(exclusive = true)
        RunCommand.TargetType type = new RunCommand.TargetType();
        @Option(names = "--version", required = true, paramLabel = "V", description = "The agent package version (drover agent-package list).")
        String version;
        @Option(names = "--batch-size", paramLabel = "N", description = "Agents upgraded at the same time (1 to 1000, default 10).")
        Integer batchSize;
        @Option(names = "--max-failure-ratio", paramLabel = "R", description = "Stop before the next batch once failed / attempted "
                + "is above R (0 to 1, default 0: the first failure stops).")
        Double maxFailureRatio;
        @Option(names = "--business", paramLabel = "N", description = "The business (bk_biz_id) of the agents' hosts (default: the one they are all in).")
        Long business;
        @Option(names = "--wait-seconds", paramLabel = "N", description = "Seconds each agent has to come back with the version (10 to 3600, default 180).")
        Integer waitSeconds;
        @Option(names = "--allow-downgrade", description = "Take agents that run a newer version down to this one (else they fail).")
        boolean allowDowngrade;
        @Option(names = "--wait", negatable = true, description = "Follow the upgrade until it ends (default on a terminal).")
        Boolean wait;

        @Override
        public Integer call() {
            PrintWriter out = client.out();
            AgentUpgradeTask task = client.client().post("/api/v1/agent-upgrades", new AgentUpgradeRequest(target,
                    type.type(), version, business, batchSize, maxFailureRatio, waitSeconds, allowDowngrade ? true : null),
                    AgentUpgradeTask.class);
            boolean follow = wait != null ? wait : System.console() != null;
            long batches = task.hosts().stream().mapToInt(AgentUpgradeHost::batch).distinct().count();
            out.printf("agent upgrade %d started: %d agent(s) of business %d to %s in %d batch(es)%s%n", task.id(),
                    task.total(), task.bkBizId(), task.version(), batches,
                    follow ? "" : "; follow it with drover agent upgrades " + task.id());
            out.flush();
            if (!follow) {
                return 0;
            }
            AgentUpgradeTask done = watch(client.client(), out, task.id());
            return done.status() == RolloutStatus.SUCCEEDED ? 0 : 1;
        }
    }

    /** Prints each agent's progress as it changes until the upgrade ends; then its agents. */
    static AgentUpgradeTask watch(ApiClient client, PrintWriter out, long taskId) {
        Map<Long, String> shown = new HashMap<>();
        while (true) {
            AgentUpgradeTask task = client.get("/api/v1/agent-upgrades/" + taskId, AgentUpgradeTask.class);
            for (AgentUpgradeHost h : task.hosts()) {
                if (h.status() == UpgradeHostState.PENDING && h.startedAt() == null) {
                    continue;
                }
                String line = Output.printable("batch " + h.batch() + "  " + h.agentId() + "  " + h.status().wire()
                        + (h.version() != null ? "  " + h.version() : "") + (h.error() != null ? "  " + h.error() : ""));
                if (!line.equals(shown.put(h.id(), line))) {
                    out.println(line);
                }
            }
            out.flush();
            if (task.status() != RolloutStatus.RUNNING) {
                out.printf("agent upgrade %d %s: %d succeeded, %d skipped, %d failed, %d not started%n", taskId, task.status().wire(),
                        task.succeeded(), task.skipped(), task.failed(), task.notStarted());
                out.print(Output.table(task.hosts(), HOSTS));
                out.flush();
                return task;
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException("interrupted; the upgrade goes on: drover agent upgrades " + taskId);
            }
        }
    }

    @Command(name = "upgrades", description = "Agent upgrades: all of them, or one with its agents.")
    static final class Upgrades implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID", arity = "0..1") Long id;

        @Override
        public Integer call() {
            if (id == null) {
                List<AgentUpgradeTask> tasks = client.client().get("/api/v1/agent-upgrades", new TypeReference<>() { });
                client.output().print(tasks, tasks, TASKS);
                return 0;
            }
            AgentUpgradeTask task = client.client().get("/api/v1/agent-upgrades/" + id, AgentUpgradeTask.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(task);
                return 0;
            }
            PrintWriter out = client.out();
            out.print(Output.table(List.of(task), TASKS));
            out.print(Output.table(task.hosts(), HOSTS));
            out.flush();
            return 0;
        }
    }

    @Command(name = "upgrade-cancel", description = "Cancel a running agent upgrade: no further batch starts (the one under "
            + "way runs to its end); its agents not started end not_started and the upgrade cancelled.")
    static final class Cancel implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            AgentUpgradeTask task = client.client().postNoBody("/api/v1/agent-upgrades/" + id + "/cancel", AgentUpgradeTask.class);
            client.out().printf("agent upgrade %d: cancelled; no further batch starts (follow it with drover agent upgrades %d)%n",
                    task.id(), task.id());
            client.out().flush();
            return 0;
        }
    }
}

package io.drover.model.agentapi;

import java.util.List;
import java.util.Map;

/** What an agent answers to an {@link AgentCall}; {@link AgentCallCodec} maps each to Salt's return value and back. */
public sealed interface AgentResult {
    /** {@code True}, as Salt answers {@code test.ping}. */
    record Pong() implements AgentResult {
    }

    /** A line of text ({@code test.echo}, {@code test.version}). */
    record Text(String text) implements AgentResult {
    }

    /** Grains by name. */
    record Grains(Map<String, Object> values) implements AgentResult {
    }

    /** A running job as the agent describes it; empty when the job is not running. */
    record RunningJob(Map<String, Object> job) implements AgentResult {
        public boolean running() {
            return !job.isEmpty();
        }
    }

    /**
     * The answer to {@code saltutil.kill_job}: whether the job was running there, and how many processes were
     * signalled (a salt-minion answers a sentence, "Signal 9 sent to job JID at pid PID", or nothing).
     */
    record JobKilled(String jid, boolean found, int signalled) implements AgentResult {
    }

    /** A command's output (stdout and stderr, bounded) and exit code; Salt puts the exit code in the retcode. */
    record CommandOutput(String output, int exitCode) implements AgentResult {
    }

    record FileWritten(String path, long bytes, String md5) implements AgentResult {
    }

    record FileRemoved(String path, boolean removed) implements AgentResult {
    }

    record Ports(List<Integer> ports) implements AgentResult {
        public Ports {
            ports = List.copyOf(ports);
        }
    }

    record PackageInstalled(String targetDir, int files, String sha256) implements AgentResult {
    }

    /** The installer of {@code toVersion} runs, detached from the agent; its output goes to {@code log} on the host. */
    record UpgradeHandedOver(String fromVersion, String toVersion, String log) implements AgentResult {
    }

    /** {@code sha256} is empty when the directory holds no package Drover installed. */
    record InstalledPackage(String targetDir, boolean exists, String sha256) implements AgentResult {
    }

    /** An execution plan's result document ({@code FormatVersion}, {@code ErrorCode}, {@code Body}…; vCurrent form for a vCurrent plan). */
    record PlanFinished(Map<String, Object> document) implements AgentResult {
    }

    /** A diagnosis operation's outcome: succeeded or not, the results it adds to the data map, and why it failed. */
    record OperationOutcome(boolean succeeded, Map<String, String> results, String error) implements AgentResult {
        public OperationOutcome {
            results = results == null ? Map.of() : Map.copyOf(results);
        }
    }

    record PluginRemoved(String targetDir, boolean removed) implements AgentResult {
    }

    record ProcessRegistered(String name, boolean registered) implements AgentResult {
    }

    record ProcessUnregistered(String name, boolean unregistered) implements AgentResult {
    }

    /**
     * A process after an operation: its status, pid and version (while running), whether the agent keeps it alive,
     * and its health when it has a health command.
     */
    record ProcessState(String name, ProcessOp op, ProcessStatus status, Long pid, String version, Boolean delegate,
                        Boolean healthy) implements AgentResult {
        public boolean running() {
            return status == ProcessStatus.RUNNING;
        }
    }
}

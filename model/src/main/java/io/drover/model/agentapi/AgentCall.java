package io.drover.model.agentapi;

import java.util.List;

/**
 * A call the server makes to a Drover agent, typed by the result it answers with. {@link AgentCallCodec} maps each
 * one to Salt's {@code fun} and {@code arg} (with keyword arguments in a trailing {@code __kwarg__} map) and back, on
 * both sides; Salt's own functions keep Salt's names and arguments, so a real salt-minion answers them too.
 */
public sealed interface AgentCall<R extends AgentResult> {
    /** {@code test.ping}. */
    record Ping() implements AgentCall<AgentResult.Pong> {
    }

    /** {@code test.echo TEXT}. */
    record Echo(String text) implements AgentCall<AgentResult.Text> {
    }

    /** {@code test.version}: the agent's version. */
    record AgentVersion() implements AgentCall<AgentResult.Text> {
    }

    /** {@code grains.items}, or {@code grains.item KEY…} when keys are given. */
    record GetGrains(List<String> keys) implements AgentCall<AgentResult.Grains> {
        public GetGrains {
            keys = List.copyOf(keys);
        }
    }

    /** {@code saltutil.find_job JID}: what the agent knows of a running job (empty when it is not running). */
    record FindJob(String jid) implements AgentCall<AgentResult.RunningJob> {
    }

    /**
     * {@code saltutil.kill_job JID}: stops a running job. A Drover agent sends SIGTERM to the process group of every
     * process the job started (and their descendants), SIGKILL to what is left after a grace, and the job then
     * returns, marked killed; a salt-minion kills the job's process with SIGKILL and the job never returns.
     */
    record KillJob(String jid) implements AgentCall<AgentResult.JobKilled> {
    }

    /** {@code cmd.run CMD} with {@code /bin/sh -c} in the agent root. */
    record RunCommand(String command) implements AgentCall<AgentResult.CommandOutput> {
    }

    /**
     * {@code cmd.script SOURCE [ARGS] [sha256=…]}: {@code source} is the script itself, or with {@code sha256} a file
     * of the server's file root.
     */
    record RunScript(String source, String sha256, List<String> args) implements AgentCall<AgentResult.CommandOutput> {
        public RunScript {
            args = List.copyOf(args);
        }
    }

    /** {@code file.write PATH CONTENT [MODE]}: written beside the target, then renamed over it. */
    record WriteFile(String path, String content, String mode) implements AgentCall<AgentResult.FileWritten> {
    }

    /** {@code file.write PATH source=… sha256=… [mode=…]}: a file of the server's file root, checked, then written. */
    record FetchFile(String path, String source, String sha256, String mode) implements AgentCall<AgentResult.FileWritten> {
    }

    /** {@code file.remove PATH}: a file, or a directory with everything under it. */
    record RemoveFile(String path) implements AgentCall<AgentResult.FileRemoved> {
    }

    /** {@code sys.used_ports}: the TCP ports listening on the host. */
    record UsedPorts() implements AgentCall<AgentResult.Ports> {
    }

    /** {@code plugin.install_package SOURCE SHA256 TARGET_DIR}: fetched, checked, safely extracted, swapped into place. */
    record InstallPackage(String source, String sha256, String targetDir) implements AgentCall<AgentResult.PackageInstalled> {
    }

    /**
     * {@code agent.upgrade SOURCE SHA256 VERSION [WAIT_SECONDS]}: the agent fetches a package of itself from the server's
     * files, checks its sha256, version and architecture, and hands over to that package's installer ({@code
     * drover-agent upgrade --wait-seconds WAIT_SECONDS}), which restarts it and rolls back when the new version has not
     * signed in by then. The reply comes before the restart; the server learns the outcome from the version the agent
     * reports when it is back.
     */
    record UpgradeAgent(String source, String sha256, String version, int waitSeconds)
            implements AgentCall<AgentResult.UpgradeHandedOver> {
        public static final int DEFAULT_WAIT_SECONDS = 120;
        public static final int MIN_WAIT_SECONDS = 10;
        public static final int MAX_WAIT_SECONDS = 3600;

        public UpgradeAgent {
            if (waitSeconds < MIN_WAIT_SECONDS || waitSeconds > MAX_WAIT_SECONDS) {
                throw new BadCall("wait_seconds " + waitSeconds + " is not between " + MIN_WAIT_SECONDS + " and "
                        + MAX_WAIT_SECONDS);
            }
        }
    }

    /** {@code plugin.installed TARGET_DIR}: whether a plugin directory exists and the sha256 of its package. */
    record QueryPackage(String targetDir) implements AgentCall<AgentResult.InstalledPackage> {
    }

    /** {@code plugin.remove TARGET_DIR}. */
    record RemovePlugin(String targetDir) implements AgentCall<AgentResult.PluginRemoved> {
    }

    /** {@code proc.register NAME setup_path=… pid_path=… start_cmd=… […]}. */
    record RegisterProcess(ProcessSpec spec) implements AgentCall<AgentResult.ProcessRegistered> {
    }

    /** {@code proc.unregister NAME}. */
    record UnregisterProcess(String name) implements AgentCall<AgentResult.ProcessUnregistered> {
    }

    /**
     * {@code plan.execute PLAN}: runs an execution plan (its JSON text, in the unified agent's format) and answers its
     * result document; log messages the plan sends arrive meanwhile as {@code drover/plan/<ID>/log} events.
     */
    record RunPlan(String plan) implements AgentCall<AgentResult.PlanFinished> {
    }

    /** {@code diag.operation RUN}: one diagnosis operation (as JSON); answers whether it succeeded and its results. */
    record RunOperation(OperationRequest run) implements AgentCall<AgentResult.OperationOutcome> {
    }

    /** {@code proc.operate NAME OP}. */
    record OperateProcess(String name, ProcessOp op) implements AgentCall<AgentResult.ProcessState> {
    }
}

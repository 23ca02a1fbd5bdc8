package io.drover.model.agentapi;

import java.util.List;

/**
 * A call the server makes to a Drover agent, typed by the result it answers with. {@link AgentCallCodec} maps each
 * one to Salt's {@code fun} and {@code arg} (with keyword arguments in a trailing {@code __kwarg__} map) and back, on
 * both sides; Salt's own functions keep Salt's names and arguments, so a real salt-minion answers them too.
 */
public sealed interface AgentCall<R extends AgentResult> {
    /** The record the agent answers with. */
    Class<R> resultType();

    /** {@code test.ping}. */
    record Ping() implements AgentCall<AgentResult.Pong> {
        public Class<AgentResult.Pong> resultType() {
            return AgentResult.Pong.class;
        }
    }

    /** {@code test.echo TEXT}. */
    record Echo(String text) implements AgentCall<AgentResult.Text> {
        public Class<AgentResult.Text> resultType() {
            return AgentResult.Text.class;
        }
    }

    /** {@code test.version}: the agent's version. */
    record AgentVersion() implements AgentCall<AgentResult.Text> {
        public Class<AgentResult.Text> resultType() {
            return AgentResult.Text.class;
        }
    }

    /** {@code grains.items}, or {@code grains.item KEY…} when keys are given. */
    record GetGrains(List<String> keys) implements AgentCall<AgentResult.Grains> {
        public GetGrains {
            keys = List.copyOf(keys);
        }

        public Class<AgentResult.Grains> resultType() {
            return AgentResult.Grains.class;
        }
    }

    /** {@code saltutil.find_job JID}: what the agent knows of a running job (empty when it is not running). */
    record FindJob(String jid) implements AgentCall<AgentResult.RunningJob> {
        public Class<AgentResult.RunningJob> resultType() {
            return AgentResult.RunningJob.class;
        }
    }

    /** {@code cmd.run CMD} with {@code /bin/sh -c} in the agent root. */
    record RunCommand(String command) implements AgentCall<AgentResult.CommandOutput> {
        public Class<AgentResult.CommandOutput> resultType() {
            return AgentResult.CommandOutput.class;
        }
    }

    /**
     * {@code cmd.script SOURCE [ARGS] [sha256=…]}: {@code source} is the script itself, or with {@code sha256} a file
     * of the server's file root.
     */
    record RunScript(String source, String sha256, List<String> args) implements AgentCall<AgentResult.CommandOutput> {
        public RunScript {
            args = List.copyOf(args);
        }

        public Class<AgentResult.CommandOutput> resultType() {
            return AgentResult.CommandOutput.class;
        }
    }

    /** {@code file.write PATH CONTENT [MODE]}: written beside the target, then renamed over it. */
    record WriteFile(String path, String content, String mode) implements AgentCall<AgentResult.FileWritten> {
        public Class<AgentResult.FileWritten> resultType() {
            return AgentResult.FileWritten.class;
        }
    }

    /** {@code file.write PATH source=… sha256=… [mode=…]}: a file of the server's file root, checked, then written. */
    record FetchFile(String path, String source, String sha256, String mode) implements AgentCall<AgentResult.FileWritten> {
        public Class<AgentResult.FileWritten> resultType() {
            return AgentResult.FileWritten.class;
        }
    }

    /** {@code file.remove PATH}: a file, or a directory with everything under it. */
    record RemoveFile(String path) implements AgentCall<AgentResult.FileRemoved> {
        public Class<AgentResult.FileRemoved> resultType() {
            return AgentResult.FileRemoved.class;
        }
    }

    /** {@code sys.used_ports}: the TCP ports listening on the host. */
    record UsedPorts() implements AgentCall<AgentResult.Ports> {
        public Class<AgentResult.Ports> resultType() {
            return AgentResult.Ports.class;
        }
    }

    /** {@code plugin.install_package SOURCE SHA256 TARGET_DIR}: fetched, checked, safely extracted, swapped into place. */
    record InstallPackage(String source, String sha256, String targetDir) implements AgentCall<AgentResult.PackageInstalled> {
        public Class<AgentResult.PackageInstalled> resultType() {
            return AgentResult.PackageInstalled.class;
        }
    }

    /** {@code plugin.installed TARGET_DIR}: whether a plugin directory exists and the sha256 of its package. */
    record QueryPackage(String targetDir) implements AgentCall<AgentResult.InstalledPackage> {
        public Class<AgentResult.InstalledPackage> resultType() {
            return AgentResult.InstalledPackage.class;
        }
    }

    /** {@code plugin.remove TARGET_DIR}. */
    record RemovePlugin(String targetDir) implements AgentCall<AgentResult.PluginRemoved> {
        public Class<AgentResult.PluginRemoved> resultType() {
            return AgentResult.PluginRemoved.class;
        }
    }

    /** {@code proc.register NAME setup_path=… pid_path=… start_cmd=… […]}. */
    record RegisterProcess(ProcessSpec spec) implements AgentCall<AgentResult.ProcessRegistered> {
        public Class<AgentResult.ProcessRegistered> resultType() {
            return AgentResult.ProcessRegistered.class;
        }
    }

    /** {@code proc.unregister NAME}. */
    record UnregisterProcess(String name) implements AgentCall<AgentResult.ProcessUnregistered> {
        public Class<AgentResult.ProcessUnregistered> resultType() {
            return AgentResult.ProcessUnregistered.class;
        }
    }

    /** {@code proc.operate NAME OP}. */
    record OperateProcess(String name, ProcessOp op) implements AgentCall<AgentResult.ProcessState> {
        public Class<AgentResult.ProcessState> resultType() {
            return AgentResult.ProcessState.class;
        }
    }
}

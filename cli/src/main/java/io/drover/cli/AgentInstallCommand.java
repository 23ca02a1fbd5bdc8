package io.drover.cli;

import io.drover.model.agentinstall.InstallStatus;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.agentinstall.AgentInstallHost;
import io.drover.model.agentinstall.AgentInstallRequest;
import io.drover.model.agentinstall.AgentInstallRetry;
import io.drover.model.agentinstall.AgentInstallStep;
import io.drover.model.agentinstall.AgentInstallTask;
import io.drover.model.agentinstall.SshHostKey;
import io.drover.cli.Output.Column;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drover agent install-remote} and {@code drover agent installs}: agents installed by the server over SSH. The
 * key or password file is read here and sent in the request body (use HTTPS); the server holds it for the task's run
 * only.
 */
final class AgentInstallCommand {
    static final List<Column<AgentInstallTask>> TASKS = List.of(Column.of("ID", AgentInstallTask::id),
            Column.of("BIZ", AgentInstallTask::bkBizId), Column.of("STATUS", AgentInstallTask::status),
            Column.of("HOSTS", AgentInstallTask::total), Column.of("OK", AgentInstallTask::succeeded),
            Column.of("FAILED", AgentInstallTask::failed), Column.of("USER", AgentInstallTask::sshUser),
            Column.of("BY", AgentInstallTask::createdBy), Column.of("CREATED", AgentInstallTask::createdAt));
    static final List<Column<AgentInstallHost>> HOSTS = List.of(new Column<>("HOST", h -> h.address() + ":" + h.port()),
            Column.of("AGENT", AgentInstallHost::agentId), Column.of("STATUS", AgentInstallHost::status),
            new Column<>("STEP", AgentInstallCommand::step), Column.of("ARCH", AgentInstallHost::arch),
            Column.of("ERROR", AgentInstallHost::error));
    /** The largest key or password file read. */
    static final long MAX_SECRET_FILE = 16 * 1024;

    private AgentInstallCommand() {
    }

    /** The last step of a host with its status: {@code upload (running)}. */
    static String step(AgentInstallHost host) {
        List<AgentInstallStep> steps = steps(host);
        if (steps.isEmpty()) {
            return "";
        }
        AgentInstallStep last = steps.get(steps.size() - 1);
        return orEmpty(last.name()) + " (" + (last.status() == null ? "" : Output.text(last.status())) + ")";
    }

    private static List<AgentInstallStep> steps(AgentInstallHost host) {
        return host.steps() == null ? List.of() : host.steps();
    }

    /** A text field as the table shows an absent one: empty. */
    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    private static List<AgentInstallHost> hosts(AgentInstallTask task) {
        return task.hosts() == null ? List.of() : task.hosts();
    }

    @Command(name = "install-remote", description = "Install agents on hosts over SSH: the server connects to each host, "
            + "checks its host key, uploads the agent package for its architecture, installs it with a single-use "
            + "enrollment token and waits until the agent signs in and is linked to its inventory host. The SSH user must "
            + "be root. Exit status 1 when any host failed.")
    static final class InstallRemote implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "HOST[:PORT]", arity = "0..*", description = "Hosts (port 22 unless given; [v6]:port).")
        List<String> hosts = new ArrayList<>();
        @Option(names = "--ssh-user", description = "The SSH user (root).") String user;
        @Option(names = "--ssh-key", paramLabel = "FILE", description = "Private key file (PEM or OpenSSH, RSA or ECDSA, unencrypted).")
        Path key;
        @Option(names = "--ssh-password-file", paramLabel = "FILE", description = "File whose first line is the SSH password.")
        Path passwordFile;
        @Option(names = "--jump", paramLabel = "USER@HOST[:PORT]", description = "Reach the hosts through this SSH jump host (same credentials).")
        String jump;
        @Option(names = "--business", paramLabel = "N", description = "The business (bk_biz_id) the agents are enrolled in.")
        Long business;
        @Option(names = "--concurrency", paramLabel = "N", description = "Hosts installed at the same time (1 to 200, default 50).")
        Integer concurrency;
        @Option(names = "--master", paramLabel = "HOST:PORT", split = ",", description = "The server's agent transport address the hosts reach.")
        List<String> masters;
        @Option(names = "--master-finger", paramLabel = "SHA256", description = "Pin this master key (drover key finger --master); default: the server's own key.")
        String masterFinger;
        @Option(names = "--publish-port", paramLabel = "PORT", description = "The server's publish port (default 4505).")
        Integer publishPort;
        @Option(names = "--package-version", paramLabel = "V", description = "Agent package version (default: the newest).")
        String packageVersion;
        @Option(names = "--ip", paramLabel = "ADDR", description = "Inner IP of the (one) host in the inventory (default: the host's address).")
        String ip;
        @Option(names = "--id", paramLabel = "ID", description = "Agent id of the (one) host (default: its address).")
        String id;
        @Option(names = "--prefix", paramLabel = "DIR", description = "Install under DIR on the hosts (tests, images).")
        String prefix;
        @Option(names = "--service", paramLabel = "KIND", description = "auto, systemd, process or none (the installer's --service).")
        String service;
        @Option(names = "--wait-seconds", paramLabel = "N", description = "Seconds each agent has to sign in (default 60).")
        Integer waitSeconds;
        @Option(names = "--retry", paramLabel = "ID", description = "Install the failed hosts of install ID again (credentials again).")
        Long retry;
        @Option(names = "--wait", negatable = true, description = "Follow the install until it ends (default on a terminal).")
        Boolean wait;

        @Override
        public Integer call() {
            PrintWriter out = client.out();
            Credentials credentials = credentials();
            AgentInstallTask task;
            if (retry != null) {
                if (!hosts.isEmpty()) {
                    throw new CliException("--retry " + retry + " runs that install's failed hosts: give no HOST");
                }
                task = client.client().post("/api/v1/agent-installs/" + retry + "/retry",
                        new AgentInstallRetry(credentials.privateKey(), credentials.password(), null, null), AgentInstallTask.class);
            } else {
                if (hosts.isEmpty()) {
                    throw new CliException("give at least one HOST[:PORT] (or --retry ID)");
                }
                if (hosts.size() > 1 && (ip != null || id != null)) {
                    throw new CliException("--ip and --id name one host's inventory address and agent id: give one HOST with them");
                }
                List<AgentInstallRequest.InstallHost> list = new ArrayList<>();
                for (String h : hosts) {
                    list.add(host(h));
                }
                task = client.client().post("/api/v1/agent-installs", new AgentInstallRequest(list, user,
                        credentials.privateKey(), credentials.password(), jump, null, null, business, concurrency,
                        packageVersion, masters, masterFinger, publishPort, prefix, service, waitSeconds), AgentInstallTask.class);
            }
            long taskId = task.id();
            boolean follow = wait != null ? wait : System.console() != null;
            out.printf("agent install %d started: %d host(s)%s%n", taskId, hosts(task).size(),
                    follow ? "" : "; follow it with drover agent installs " + taskId);
            if (!follow) {
                return 0;
            }
            AgentInstallTask done = watch(client.client(), out, taskId);
            return done.status() == InstallStatus.SUCCEEDED ? 0 : 1;
        }

        private AgentInstallRequest.InstallHost host(String spec) {
            HostPort target = HostPort.parse(spec);
            return new AgentInstallRequest.InstallHost(target.address(), target.port(), null, ip, id, null);
        }

        /** The SSH credential: a private key or a password, never both. */
        private record Credentials(String privateKey, String password) {
        }

        private Credentials credentials() {
            if ((key == null) == (passwordFile == null)) {
                throw new CliException("give --ssh-key FILE or --ssh-password-file FILE (one of them)");
            }
            Credentials c = key != null ? new Credentials(read(key, "--ssh-key"), null)
                    : new Credentials(null, read(passwordFile, "--ssh-password-file").lines().findFirst().orElse(""));
            if (retry == null && user == null) {
                throw new CliException("--ssh-user is required (root)");
            }
            return c;
        }

        private static String read(Path file, String option) {
            try {
                if (Files.size(file) > MAX_SECRET_FILE) {
                    throw new CliException(option + " " + file + " is larger than " + MAX_SECRET_FILE + " bytes: is it the right file?");
                }
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new CliException("cannot read " + option + " " + file + ": " + e.getClass().getSimpleName());
            }
        }
    }

    /** {@code HOST}, {@code HOST:PORT}, {@code [IPv6]:PORT} or an IPv6 address alone; {@code port} null when not given. */
    record HostPort(String address, Integer port) {
        static HostPort parse(String spec) {
            if (spec.startsWith("[")) {
                int end = spec.indexOf(']');
                if (end < 0) {
                    throw new CliException("'" + spec + "' is not [ADDRESS]:PORT");
                }
                return new HostPort(spec.substring(1, end), spec.length() > end + 1 ? port(spec, spec.substring(end + 1)) : null);
            }
            if (spec.indexOf(':') > 0 && spec.indexOf(':') == spec.lastIndexOf(':')) {
                return new HostPort(spec.substring(0, spec.indexOf(':')), port(spec, spec.substring(spec.indexOf(':'))));
            }
            return new HostPort(spec, null);
        }

        private static Integer port(String spec, String colonPort) {
            if (!colonPort.matches(":[0-9]{1,5}")) {
                throw new CliException("'" + spec + "': the port must be a number, HOST:PORT");
            }
            return Integer.parseInt(colonPort.substring(1));
        }
    }

    static final List<Column<SshHostKey>> HOST_KEYS = List.of(Column.of("ADDRESS", SshHostKey::address),
            Column.of("PORT", SshHostKey::port), Column.of("TYPE", SshHostKey::keyType),
            Column.of("FINGERPRINT", SshHostKey::fingerprint), Column.of("FIRST SEEN", SshHostKey::firstSeen));

    @Command(name = "host-keys", description = "The SSH host keys the server recorded at the first contact of an agent "
            + "install, by address and port (needs a token for every business).")
    static final class HostKeys implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            List<SshHostKey> keys = client.client().get("/api/v1/agent-installs/host-keys", new TypeReference<>() { });
            client.output().print(keys, keys, HOST_KEYS);
            return 0;
        }
    }

    @Command(name = "host-key", description = "A recorded SSH host key: forget it.", subcommands = HostKey.Forget.class)
    static final class HostKey {
        @Command(name = "forget", description = "Forget the host key recorded for HOST:PORT (admin), after the host was "
                + "re-installed on purpose: its next install records the key it presents then. Check first that the new "
                + "key is the host's (its console, ssh-keygen -lf on it): a changed key is also what a machine in the "
                + "middle presents.")
        static final class Forget implements Callable<Integer> {
            @Mixin ClientOptions client;
            @Parameters(paramLabel = "HOST[:PORT]", description = "As the install named it (port 22 unless given; [v6]:port).")
            String host;

            @Override
            public Integer call() {
                HostPort target = HostPort.parse(host);
                int port = target.port() == null ? 22 : target.port();
                client.client().delete("/api/v1/agent-installs/host-keys/" + AgentPackageCommand.segment(target.address())
                        + "/" + port);
                String shown = target.address().indexOf(':') >= 0 ? "[" + target.address() + "]" : target.address();
                client.out().println("the host key of " + shown + ":" + port
                        + " is forgotten: the next install records the key the host presents");
                return 0;
            }
        }
    }

    /** Prints each host's progress as it changes until the install ends; then its hosts. */
    static AgentInstallTask watch(ApiClient client, PrintWriter out, long taskId) {
        Map<Long, String> shown = new HashMap<>();
        while (true) {
            AgentInstallTask task = client.get("/api/v1/agent-installs/" + taskId, AgentInstallTask.class);
            for (AgentInstallHost h : hosts(task)) {
                String line = h.address() + ":" + h.port() + "  " + orEmpty(h.agentId()) + "  " + (h.status() == null ? "" : Output.text(h.status())) + "  " + step(h)
                        + (h.error() != null ? "  " + h.error() : "");
                if (!line.equals(shown.put(h.id(), line))) {
                    out.println(line);
                }
            }
            out.flush();
            if (task.status() != InstallStatus.RUNNING) {
                out.printf("agent install %d %s: %d succeeded, %d failed%n", taskId, Output.text(task.status()),
                        task.succeeded(), task.failed());
                out.print(Output.table(hosts(task), HOSTS));
                out.flush();
                return task;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException("interrupted; the install goes on: drover agent installs " + taskId);
            }
        }
    }

    @Command(name = "installs", description = "Agent installs over SSH: all of them, or one with its hosts and (--steps) their steps.")
    static final class Installs implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID", arity = "0..1") Long id;
        @Option(names = "--steps", description = "Print every step of every host with its log lines.") boolean steps;

        @Override
        public Integer call() {
            if (id == null) {
                List<AgentInstallTask> tasks = client.client().get("/api/v1/agent-installs", new TypeReference<>() { });
                client.output().print(tasks, tasks, TASKS);
                return 0;
            }
            AgentInstallTask task = client.client().get("/api/v1/agent-installs/" + id, AgentInstallTask.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(task);
                return 0;
            }
            PrintWriter out = client.out();
            out.print(Output.table(List.of(task), TASKS));
            out.print(Output.table(hosts(task), HOSTS));
            if (steps) {
                for (AgentInstallHost h : hosts(task)) {
                    out.println(h.address() + ":" + h.port() + " " + orEmpty(h.agentId()));
                    for (AgentInstallStep s : steps(h)) {
                        out.println("  " + s.name() + " " + Output.text(s.status()));
                        (s.log() == null ? List.<String>of() : s.log()).forEach(l -> out.println("    " + l));
                    }
                }
            }
            out.flush();
            return 0;
        }
    }
}

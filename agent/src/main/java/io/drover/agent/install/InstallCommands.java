package io.drover.agent.install;

import io.drover.agent.OptionText;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code drover-agent install|upgrade|uninstall|status}: the agent package installing itself on a host. Exit status
 * 0 when done, 1 when it failed (one line on standard error saying why and what to do), 2 for a bad command line.
 */
public final class InstallCommands {
    private InstallCommands() {
    }

    /** Runs the command {@code args[from]} with the options after it. */
    public static int run(String[] args, int from, PrintStream out, PrintStream err) {
        return run(args, from, out, err, Host.real());
    }

    static int run(String[] args, int from, PrintStream out, PrintStream err, Host host) {
        InstallOptions.Command command = from < args.length ? InstallOptions.command(args[from]) : null;
        if (command == null) {
            err.println("error: " + (from < args.length ? "unknown command " + InstallOptions.show(args[from]) : "no command")
                    + ": drover-agent install|upgrade|uninstall|status (each has --help)");
            return 2;
        }
        InstallOptions options;
        try {
            options = InstallOptions.parse(command, args, from + 1);
        } catch (OptionText.Invalid e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        if (options.help) {
            out.print(usage(command));
            return 0;
        }
        if (!host.root() && options.prefix.toString().equals("/")) {
            err.println("error: drover-agent " + command.word() + " must run as root (it manages /opt/drover-agent, "
                    + "/etc/drover, /var/lib/drover-agent and the service): run it with sudo, or give --prefix DIR "
                    + "to work under DIR instead");
            return 1;
        }
        try {
            return switch (command) {
                case INSTALL -> new Installer(host, out).install(options);
                case UPGRADE -> new Installer(host, out).upgrade(options);
                case UNINSTALL -> new Uninstaller(host, out).uninstall(options);
                case STATUS -> new StatusReport(host, out).status(options);
            };
        } catch (InstallFailed e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    /** The help of one command: what it does, its options, examples. */
    static String usage(InstallOptions.Command command) {
        StringBuilder out = new StringBuilder(4096);
        switch (command) {
            case INSTALL -> {
                out.append("Usage: drover-agent install --master HOST[:PORT] [--id ID] [--enroll-token-file FILE|-] [OPTION]...\n\n");
                wrap(out, "Installs this agent package on the host and starts it: the package goes to "
                        + "/opt/drover-agent/versions/<version> with /opt/drover-agent/current linking to it, the agent's "
                        + "options to /etc/drover/agent.yaml, secrets to /etc/drover/secrets (0600), its state (key, journal) "
                        + "to /var/lib/drover-agent (0700), and a systemd unit drover-agent.service when systemd runs. Then "
                        + "it waits for the agent to sign in to the server and says why when it does not. Running it again "
                        + "with the same options changes nothing; with other options it rewrites the configuration and "
                        + "restarts the agent. Runs as root unless --prefix is given.", "", 80);
            }
            case UPGRADE -> {
                out.append("Usage: drover-agent upgrade [--package DIR] [--wait-seconds N] [--prefix DIR]\n\n");
                wrap(out, "Installs a new version beside the running one, switches /opt/drover-agent/current to it, "
                        + "restarts the agent and waits for it to sign in. If it does not, switches back, restarts the old "
                        + "version and fails (exit status 1). The agent's key, journal and configuration are kept; the "
                        + "previous version stays for a later rollback, older ones are removed.", "", 80);
            }
            case UNINSTALL -> {
                out.append("Usage: drover-agent uninstall [--purge] [--prefix DIR]\n\n");
                wrap(out, "Stops the agent and removes its service, unit and /opt/drover-agent. Its key, journal, "
                        + "configuration and secrets stay (a new install signs in as the same agent) unless --purge is "
                        + "given. Nothing installed is not an error.", "", 80);
            }
            case STATUS -> {
                out.append("Usage: drover-agent status [--prefix DIR]\n\n");
                wrap(out, "Shows the installed versions, the current one, the service's state and the agent's last "
                        + "sign-in. Exit status 0 when installed and running, 1 otherwise.", "", 80);
            }
        }
        out.append("\nOptions (--name VALUE or --name=VALUE):\n");
        for (String[] option : InstallOptions.help(command)) {
            out.append("  ").append(option[0]).append('\n');
            wrap(out, option[1], "      ", 80);
        }
        out.append("  -h, --help\n");
        wrap(out, "Show this help.", "      ", 80);
        out.append("\nExamples:\n");
        for (String example : examples(command)) {
            out.append("  ").append(example).append('\n');
        }
        return out.toString();
    }

    private static List<String> examples(InstallOptions.Command command) {
        return switch (command) {
            case INSTALL -> List.of(
                    "printf %s \"$TOKEN\" | sudo ./drover-agent-0.1.0-linux-x86_64/bin/drover-agent install \\",
                    "    --master drover.example.com --enroll-token-file -",
                    "sudo bin/drover-agent install --master 10.0.0.5:4506,10.0.0.6 --id web-01 \\",
                    "    --enroll-token-file /root/token --master-finger 3f:...:9a",
                    "bin/drover-agent install --master drover --service process   # a container without systemd",
                    "bin/drover-agent install --prefix /tmp/img --master drover --service none --wait-seconds 0");
            case UPGRADE -> List.of(
                    "sudo ./drover-agent-0.2.0-linux-x86_64/bin/drover-agent upgrade",
                    "sudo drover-agent upgrade --package /tmp/drover-agent-0.2.0-linux-x86_64 --wait-seconds 120");
            case UNINSTALL -> List.of(
                    "sudo drover-agent uninstall",
                    "sudo drover-agent uninstall --purge   # also the key: the server sees a new agent next time");
            case STATUS -> List.of("sudo drover-agent status");
        };
    }

    private static void wrap(StringBuilder out, String text, String indent, int width) {
        out.append(indent);
        int column = indent.length();
        boolean first = true;
        for (String word : text.split(" ")) {
            if (!first && column + 1 + word.length() > width) {
                out.append('\n').append(indent);
                column = indent.length();
            } else if (!first) {
                out.append(' ');
                column++;
            }
            out.append(word);
            column += word.length();
            first = false;
        }
        out.append('\n');
    }
}

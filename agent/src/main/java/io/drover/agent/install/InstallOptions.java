package io.drover.agent.install;

import io.drover.agent.OptionText;
import io.drover.agent.OptionText.Invalid;
import io.drover.transport.minion.MinionConfig;
import io.drover.transport.protocol.Messages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command line of {@code drover-agent install|upgrade|uninstall|status}, parsed by hand (picocli is not on the
 * agent's class path): {@code --name VALUE} or {@code --name=VALUE}. Everything is checked here, before anything on
 * the host changes; a problem is an {@link Invalid} with one line naming the option (exit status 2).
 *
 * <p>The agent's own options ({@code --master}, {@code --id}, ...) are taken by {@code install} and written to the
 * configuration file; secrets only ever come from files or standard input, never from an argument (every user of
 * the host can read a process's arguments).
 */
final class InstallOptions {
    enum Command {
        INSTALL, UPGRADE, UNINSTALL, STATUS;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }


    /** The longest value taken (a path, a URL, a list of servers). */
    private static final int MAX_VALUE = 4096;
    /** A path that goes into the systemd unit and the agent's configuration unquoted. */
    static final String PLAIN_PATH = "/[A-Za-z0-9._/+-]{0,1023}";

    /**
     * Every option: name, value label (null: a flag), the commands taking it (i: install, u: upgrade, r: uninstall,
     * s: status), description, and "agent" for an agent option that install writes to the configuration file.
     */
    private static final String[][] OPTIONS = {
            {"--package", "DIR", "iu", "The unpacked package to install, a drover-agent-<version>-linux-<arch> directory. "
                    + "Default: the package this drover-agent belongs to.", ""},
            {"--prefix", "DIR", "iurs", "Install under DIR instead of / (images, tests): every path below is under DIR. "
                    + "Needs no root.", ""},
            {"--service", "auto|systemd|process|none", "i", "What runs the agent. auto: the one chosen before, else systemd "
                    + "when it runs (and no --prefix), else none. process: the installer starts the agent in the background "
                    + "(containers). none: prints the command to run under your own supervisor.", ""},
            {"--wait-seconds", "N", "iu", "Seconds (0 to 3600) to wait for the agent to sign in; 0 does not wait. "
                    + "Default: 60. After a failed upgrade, the rollback to the old version waits at least 60.", ""},
            {"--purge", null, "r", "Also remove the agent's state (its key, journal), configuration and secrets.", ""},
            {"--master", "HOST[:PORT][,HOST[:PORT]...]", "i", "The server's agent transport (port 4506 when left out); "
                    + "several servers of a cluster in order of preference. Required.", "agent"},
            {"--id", "ID", "i", "This agent's id (letters, digits, '.', '_', '@', '-'). Default: the host name.", "agent"},
            {"--enroll-token-file", "FILE|-", "i", "Read the enrollment token from FILE, or from standard input with '-'. "
                    + "It is kept in etc/drover/secrets/enroll-token (0600).", ""},
            {"--master-finger", "SHA256", "i", "Trust only a server whose key has this sha256 fingerprint "
                    + "(drover key finger --master shows it).", "agent"},
            {"--publish-port", "PORT", "i", "The server's publish port until the server names it. Default: 4505.", "agent"},
            {"--ip", "ADDR", "i", "This host's inner IP in the inventory.", "agent"},
            {"--cloud-id", "N", "i", "This host's cloud area in the inventory.", "agent"},
            {"--heartbeat", "SECONDS", "i", "Seconds between heartbeats (1 to 3600).", "agent"},
            {"--master-failback", "SECONDS", "i", "With several --master servers: move back to the first when it answers "
                    + "again, checking every SECONDS (10 to 86400).", "agent"},
            {"--amqp-url", "URL", "i", "Take execution plans from RabbitMQ too: amqp[s]://user@host:port/vhost (no password "
                    + "in it: --amqp-password-file).", "agent"},
            {"--amqp-password-file", "FILE", "i", "Read the broker password from FILE; kept in "
                    + "etc/drover/secrets/amqp-password (0600).", ""},
            {"--amqp-cacert", "PEM", "i", "CA certificates an amqps:// broker's certificate is checked against.", "agent"},
            {"--amqp-queue", "QUEUE", "i", "The queue plans arrive on.", "agent"},
            {"--amqp-result-exchange", "EXCHANGE", "i", "Exchange for results and log messages.", "agent"},
            {"--amqp-result-routing-key", "KEY", "i", "Routing key for results.", "agent"},
            {"--amqp-log-routing-key", "KEY", "i", "Routing key for the plans' log messages (none: not sent).", "agent"},
            {"--amqp-reply-to", null, "i", "Send each result to the ReplyTo the plan's message names.", "agent"},
            {"--amqp-engine-key", "PEM", "i", "The engine's RSA public key plans must be signed with.", "agent"},
            {"--amqp-allow-unsigned", null, "i", "Run plans without checking a signature.", "agent"},
            {"--amqp-reboot-command", "CMD", "i", "Command run after a plan that called api.reboot(); may be given several "
                    + "times.", "agent"},
    };

    final Command command;
    Path prefix = Path.of("/");
    boolean prefixGiven;
    Path packageDir;
    String service = "auto";
    static final int DEFAULT_WAIT_SECONDS = 60;
    int waitSeconds = DEFAULT_WAIT_SECONDS;
    /** A file name, or "-" for standard input; null: no token. */
    String tokenFile;
    Path amqpPasswordFile;
    boolean purge;
    boolean help;
    /** Null: the host name. */
    String id;
    /** The agent options for the configuration file, in order: {name without "--", value}. */
    final List<String[]> agent = new ArrayList<>();

    private InstallOptions(Command command) {
        this.command = command;
    }

    /** The command word, or null when {@code word} names none. */
    static Command command(String word) {
        for (Command c : Command.values()) {
            if (c.word().equals(word)) {
                return c;
            }
        }
        return null;
    }

    /** Parses {@code args[from..]}, the options of {@code command}; stops at {@code -h}/{@code --help}. */
    static InstallOptions parse(Command command, String[] args, int from) throws Invalid {
        InstallOptions o = new InstallOptions(command);
        List<String> seen = new ArrayList<>();
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                o.help = true;
                return o;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 2) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            String[] option = option(name);
            if (option == null) {
                throw new Invalid(unknown(command, name, arg));
            }
            if (option[2].indexOf(letter(command)) < 0) {
                throw new Invalid(name + " is not an option of " + command.word() + hint(command));
            }
            if (option[1] == null) {
                if (value != null && !value.equals("true") && !value.equals("false")) {
                    throw new Invalid(name + " takes no value (or =true, =false), not " + show(value));
                }
                value = value == null ? "true" : value;
            } else if (value == null) {
                if (i + 1 >= args.length || option(args[i + 1]) != null || args[i + 1].equals("--help")) {
                    throw new Invalid(name + " needs a value: " + name + " " + option[1] + hint(command));
                }
                value = args[++i];
            }
            if (seen.contains(name) && !name.equals("--amqp-reboot-command")) {
                throw new Invalid(name + " is given more than once");
            }
            seen.add(name);
            o.take(name, value, option[4].equals("agent"));
        }
        o.check(seen);
        return o;
    }

    private void take(String name, String value, boolean agentOption) throws Invalid {
        if (value.length() > MAX_VALUE) {
            throw new Invalid(name + " is longer than " + MAX_VALUE + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new Invalid(name + " " + show(value) + " holds control characters");
            }
        }
        switch (name) {
            case "--prefix" -> {
                prefix = OptionText.path(name, value).toAbsolutePath().normalize();
                prefixGiven = true;
                if (!prefix.toString().matches(PLAIN_PATH)) {
                    throw new Invalid("--prefix " + show(value) + " must be a path of letters, digits and '._/+-' "
                            + "(it is written into the systemd unit)");
                }
                if (!Files.isDirectory(prefix)) {
                    throw new Invalid("--prefix " + show(value) + " is not a directory");
                }
            }
            case "--package" -> packageDir = OptionText.path(name, value);
            case "--service" -> {
                if (!value.equals("auto") && AgentService.Kind.of(value) == null) {
                    throw new Invalid("--service must be auto, systemd, process or none, not " + show(value));
                }
                service = value;
            }
            case "--wait-seconds" -> waitSeconds = (int) OptionText.number(name, value, 0, 3600);
            case "--purge" -> purge = value.equals("true");
            case "--enroll-token-file" -> tokenFile = value.equals("-") ? "-" : OptionText.path(name, value).toString();
            case "--amqp-password-file" -> amqpPasswordFile = OptionText.path(name, value);
            case "--id" -> {
                if (!Messages.validId(value)) {
                    throw new Invalid("--id " + show(value) + " is not a valid agent id (letters, digits, '.', '_', '@', '-')");
                }
                id = value;
            }
            case "--master" -> checkMasters(value);
            case "--master-finger" -> {
                if (!MinionConfig.normalFinger(value).matches("[0-9a-f]{64}")) {
                    throw new Invalid("--master-finger " + show(value) + " is not a sha256 fingerprint (64 hex digits, colons optional)");
                }
            }
            case "--publish-port" -> OptionText.number(name, value, 1, 65535);
            case "--cloud-id" -> OptionText.number(name, value, Long.MIN_VALUE, Long.MAX_VALUE);
            case "--heartbeat" -> OptionText.number(name, value, 1, 3600);
            case "--master-failback" -> OptionText.number(name, value, 10, 86_400);
            case "--amqp-url" -> {
                if (!value.matches("amqps?://[^\\s]+")) {
                    throw new Invalid("--amqp-url must start with amqp:// or amqps://");
                }
                String authority = value.substring(value.indexOf("//") + 2).split("[/?#]", 2)[0];
                if (authority.contains("@") && authority.substring(0, authority.lastIndexOf('@')).contains(":")) {
                    throw new Invalid("--amqp-url holds a password, which the configuration file would show: "
                            + "leave it out and give --amqp-password-file");
                }
            }
            case "--amqp-cacert", "--amqp-engine-key" -> {
                Path file = OptionText.path(name, value).toAbsolutePath().normalize();
                if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                    throw new Invalid(name + " " + show(value) + " is not a readable file");
                }
                value = file.toString(); // the agent runs in /, not here
            }
            default -> {
                // a value the agent checks itself: --ip, the AMQP names, --amqp-reboot-command, the flags
            }
        }
        if (agentOption && !name.equals("--id")) {
            agent.add(new String[] {name.substring(2), value});
        }
    }

    /** After every option: what is required, and what only makes sense together. */
    private void check(List<String> seen) throws Invalid {
        if (command == Command.INSTALL && !seen.contains("--master")) {
            throw new Invalid("--master is required: --master HOST[:PORT]" + hint(command));
        }
        if (amqpPasswordFile != null && !seen.contains("--amqp-url")) {
            throw new Invalid("--amqp-password-file needs --amqp-url");
        }
        if (seen.contains("--amqp-engine-key") && seen.contains("--amqp-allow-unsigned")) {
            throw new Invalid("--amqp-allow-unsigned contradicts --amqp-engine-key: plans are checked against the key");
        }
    }

    /** {@code host[:port]} entries separated by commas, as the agent reads them (at most 16). */
    private static void checkMasters(String value) throws Invalid {
        String[] entries = value.split(",", -1);
        if (entries.length > 16) {
            throw new Invalid("--master names " + entries.length + " servers; at most 16");
        }
        for (String entry : entries) {
            String host = entry.strip();
            int colon = host.lastIndexOf(':');
            if (colon > 0 && host.substring(colon + 1).matches("[0-9]{1,5}")) {
                int port = Integer.parseInt(host.substring(colon + 1));
                if (port < 1 || port > 65535) {
                    throw new Invalid("--master port " + port + " is not between 1 and 65535");
                }
                host = host.substring(0, colon);
            }
            if (!host.matches("[A-Za-z0-9.:\\[\\]_-]{1,253}")) {
                throw new Invalid("--master " + show(entry) + " is not HOST or HOST:PORT");
            }
        }
    }

    private static String unknown(Command command, String name, String arg) {
        return switch (name) {
            case "--enroll-token" -> "--enroll-token is not taken: a process's arguments are visible to every user of "
                    + "the host; give --enroll-token-file FILE, or --enroll-token-file - and the token on standard input";
            case "--amqp-password" -> "--amqp-password is not taken: give --amqp-password-file FILE";
            case "--root" -> "--root is not an option of " + command.word() + ": the agent's root is --prefix";
            case "--config" -> "--config is not an option of " + command.word() + ": install writes "
                    + "etc/drover/agent.yaml from its options";
            default -> (arg.startsWith("-") ? "unknown option " + show(name) : "unexpected argument " + show(arg)) + hint(command);
        };
    }

    private static char letter(Command command) {
        return switch (command) {
            case INSTALL -> 'i';
            case UPGRADE -> 'u';
            case UNINSTALL -> 'r';
            case STATUS -> 's';
        };
    }

    private static String[] option(String name) {
        for (String[] option : OPTIONS) {
            if (option[0].equals(name)) {
                return option;
            }
        }
        return null;
    }

    private static String hint(Command command) {
        return " (drover-agent " + command.word() + " --help lists the options)";
    }



    /** The options of {@code command} for its help: {name and label, description} in order. */
    static List<String[]> help(Command command) {
        List<String[]> out = new ArrayList<>();
        for (String[] option : OPTIONS) {
            if (option[2].indexOf(letter(command)) >= 0) {
                out.add(new String[] {option[0] + (option[1] == null ? "" : " " + option[1]), option[3]});
            }
        }
        return out;
    }

    /** A value quoted for a one-line message, at most 200 characters ({@link OptionText#show}). */
    static String show(String value) {
        return OptionText.show(value, 200);
    }
}

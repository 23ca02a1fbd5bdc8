package io.drover.dist;

import io.drover.agent.OptionText;
import io.drover.agent.OptionText.Invalid;

import io.drover.transport.minion.MinionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The options of {@code drover agent}, parsed by hand: an idle agent keeps every class it loaded in its metaspace for
 * its whole life, and picocli's annotation model (its own 168 classes plus some 185 of the JDK's reflection, proxy
 * and annotation machinery) cost about 4 MiB of RSS (docs/benchmarks.md#agent-memory). No reflection, lambdas or
 * records here.
 *
 * <p>{@code --name VALUE} and {@code --name=VALUE}; a value may start with {@code -} unless it is one of the option
 * names. {@link #parse} checks everything an agent needs before it starts (ids, servers, ports, numbers, paths) and
 * throws {@link Invalid} with a one-line message naming the option; the caller prints it and exits with 2.
 */
final class AgentOptions {
    static final String ENROLL_TOKEN_ENV = "DROVER_ENROLL_TOKEN";
    /** Read when it exists and no --config names another file. */
    static final Path DEFAULT_CONFIG = Path.of("/etc/drover/agent.yaml");
    /** The largest configuration or secret file read. */
    private static final long MAX_FILE_BYTES = 64 * 1024;

    /** Every option: name, value label (null: a flag), description, default (null: required); help keeps this order. */
    private static final String[][] OPTIONS = {
            {"--config", "FILE", "Read options from this file: one 'name: value' per line, the option names without '--' "
                    + "('#' starts a comment; a value may be quoted; a flag takes true or false). Options on the command line "
                    + "win; an unknown name is refused.", DEFAULT_CONFIG + " when it exists"},
            {"--master", "HOST[:PORT][,HOST[:PORT]...]", "The server's agent transport: host and request port (port 4506 when "
                    + "left out). Several servers of a cluster, in order of preference: the agent uses the first that answers "
                    + "and moves to the next, after a random pause, when the one it uses stops answering. At most 16.",
                    "none; --master, --amqp-url or both are required (--amqp-url alone: plans over AMQP only)"},
            {"--id", "ID", "This agent's id (letters, digits, '.', '_', '@', '-').", null},
            {"--master-finger", "SHA256", "Trust only a master whose key has this sha256 fingerprint (drover key finger --master "
                    + "shows it; colons optional).", "none: the first master's key is pinned"},
            {"--root", "DIR", "Root of the host's files; state lives in <root>/var/lib/drover-agent.", "/"},
            {"--publish-port", "PORT", "The server's publish port until the server names it.", "4505"},
            {"--ip", "ADDR", "This host's inner IP in the inventory.", "its first non-loopback IPv4 address"},
            {"--cloud-id", "N", "This host's cloud area in the inventory.", "0"},
            {"--enroll-token", "TOKEN", "Enrollment token: the server accepts this agent and places its host in the token's "
                    + "business.", "$" + ENROLL_TOKEN_ENV},
            {"--enroll-token-file", "FILE", "Read the enrollment token from this file (keeps it out of the process list).",
                    "none"},
            {"--heartbeat", "SECONDS", "Seconds between heartbeats (1 to 3600); the server marks the agent lost after three "
                    + "missed ones.", "30"},
            {"--master-failback", "SECONDS", "With several --master servers: check every SECONDS (10 to 86400) whether the "
                    + "first answers again and move back to it, keeping the session (a cluster's servers share it).",
                    "off, the agent stays where it moved"},
            {"--amqp-url", "URL", "Take execution plans from RabbitMQ: amqp[s]://user[:password]@host:port/vhost. Without "
                    + "--master the agent takes plans over AMQP only: no Drover server, no jobs, no fileserver files.", "none"},
            {"--amqp-password-file", "FILE", "Read the broker password from this file (the URL then holds none).", "none"},
            {"--amqp-cacert", "PEM", "CA certificates an amqps:// broker's certificate is checked against (its host name "
                    + "always is).", "the system's CAs"},
            {"--amqp-queue", "QUEUE", "The queue plans arrive on (with --amqp-url).", "drover-<id>"},
            {"--amqp-result-exchange", "EXCHANGE", "Exchange for results and log messages.", "the default exchange"},
            {"--amqp-result-routing-key", "KEY", "Routing key (queue) for results.", "drover-results"},
            {"--amqp-log-routing-key", "KEY", "Routing key (queue) for the plans' api.log* messages; never the results' key, "
                    + "where Murano's engine would take a log message for the plan's result.", "none: not sent over AMQP"},
            {"--amqp-reply-to", null, "Send each result to the ReplyTo the plan's message names, when it names one.", "off"},
            {"--amqp-engine-key", "PEM", "The engine's RSA public key: plans must be signed with it (SHA256withRSA over "
                    + "queue name + body, header 'signature').", "none: every plan is refused unless --amqp-allow-unsigned"},
            {"--amqp-allow-unsigned", null, "Run plans without checking a signature (no --amqp-engine-key): whoever can "
                    + "publish to the queue then runs code on this host.", "off"},
            {"--amqp-reboot-command", "CMD", "Command run after a plan that called api.reboot(), split at spaces; may be "
                    + "given several times, the words add up.", "none, the request is logged"},
    };

    /** The options about the Drover server, refused without --master. */
    private static final String[] SERVER_ONLY = {"--master-finger", "--publish-port", "--enroll-token", "--enroll-token-file",
            "--heartbeat", "--master-failback"};


    String master;
    /** Null: trust on first use. */
    String masterFinger;
    List<MinionConfig.Master> masters;
    String id;
    Path root = Path.of("/");
    int publishPort = 4505;
    String innerIp;
    long cloudId;
    /** Null when neither the option nor the environment gives one (or it is blank); else stripped. */
    String enrollToken;
    int heartbeatSeconds = 30;
    /** 0: no failback. */
    long failbackSeconds;
    String amqpUrl;
    String amqpQueue;
    String amqpResultExchange = "";
    String amqpResultRoutingKey = "drover-results";
    String amqpLogRoutingKey;
    boolean amqpReplyTo;
    Path amqpEngineKey;
    boolean amqpAllowUnsigned;
    Path amqpCaCert;
    /** From --amqp-password-file; null: the URL's own, if any. */
    String amqpPassword;
    List<String> amqpRebootCommand;
    /** The configuration file read, or null. */
    Path config;
    /** {@code -h}/{@code --help}: print {@link #usage()}, run nothing. */
    boolean help;
    /** {@code -V}/{@code --version}: print the version, run nothing. */
    boolean version;

    /**
     * Parses {@code args[from..]}, then the configuration file ({@code --config}, or {@link #DEFAULT_CONFIG} when it
     * exists) for the options the command line left out. Stops at {@code -h}/{@code --help} or {@code -V}/{@code
     * --version} (nothing after them is read, nothing is checked); else checks every value and the required options.
     *
     * @param env the environment ({@code DROVER_ENROLL_TOKEN} is the default of {@code --enroll-token})
     */
    static AgentOptions parse(String[] args, int from, Map<String, String> env) throws Invalid {
        return parse(args, from, env, DEFAULT_CONFIG);
    }

    static AgentOptions parse(String[] args, int from, Map<String, String> env, Path defaultConfig) throws Invalid {
        AgentOptions o = new AgentOptions();
        boolean[] seen = new boolean[OPTIONS.length];
        List<String[]> given = new ArrayList<>();
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                o.help = true;
                return o;
            }
            if (arg.equals("-V") || arg.equals("--version")) {
                o.version = true;
                return o;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 2) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            int index = indexOf(name);
            if (index < 0) {
                throw new Invalid(arg.startsWith("-") ? "unknown option " + show(name) + hint()
                        : "unexpected argument " + show(arg) + hint());
            }
            if (OPTIONS[index][1] == null) { // a flag: --amqp-reply-to, or --amqp-reply-to=true|false
                given.add(new String[] {name, value == null ? "true" : value});
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length || isOptionName(args[i + 1])) {
                    throw new Invalid(name + " needs a value: " + name + " " + OPTIONS[index][1] + hint());
                }
                value = args[++i];
            }
            given.add(new String[] {name, value});
        }
        for (String[] option : given) {
            o.take(option[0], option[1], seen, "");
        }
        Path file = o.config;
        if (file == null && Files.exists(defaultConfig)) {
            file = defaultConfig;
        }
        if (file != null) {
            o.config = file;
            boolean[] fromCommandLine = seen.clone();
            boolean[] inFile = new boolean[OPTIONS.length];
            for (String[] option : AgentConfigFile.read(file, MAX_FILE_BYTES)) {
                String name = "--" + option[0];
                int index = indexOf(name);
                String where = " (" + file + " line " + option[2] + ")";
                if (index < 0 || name.equals("--config")) {
                    throw new Invalid("unknown setting " + show(option[0]) + " in " + file + " line " + option[2] + hint());
                }
                int sameSetting = indexOf(name.endsWith("-file") ? name.substring(0, name.length() - 5) : name + "-file");
                if (!fromCommandLine[index] && !(sameSetting >= 0 && fromCommandLine[sameSetting])) {
                    o.take(name, option[1], inFile, where);
                    seen[index] = true;
                }
            }
        }
        o.check(seen, env);
        return o;
    }

    /** One option from the command line or the file ({@code where} says which line, for messages). */
    private void take(String name, String value, boolean[] seen, String where) throws Invalid {
        int index = indexOf(name);
        if (seen[index] && !name.equals("--amqp-reboot-command")) {
            throw new Invalid(name + " is given more than once" + where);
        }
        seen[index] = true;
        if (OPTIONS[index][1] == null) {
            if (!value.equals("true") && !value.equals("false")) {
                throw new Invalid(name + " takes no value (or =true, =false), not " + show(value) + where);
            }
            if (name.equals("--amqp-reply-to")) {
                amqpReplyTo = value.equals("true");
            } else {
                amqpAllowUnsigned = value.equals("true");
            }
            return;
        }
        try {
            set(name, value);
        } catch (Invalid e) {
            throw where.isEmpty() ? e : new Invalid(e.getMessage() + where);
        }
    }

    private void set(String name, String value) throws Invalid {
        switch (name) {
            case "--config" -> config = OptionText.path(name, value);
            case "--enroll-token-file" -> enrollToken = secret(name, OptionText.path(name, value));
            case "--amqp-password-file" -> amqpPassword = secret(name, OptionText.path(name, value));
            case "--amqp-cacert" -> amqpCaCert = OptionText.path(name, value);
            case "--master" -> master = value;
            case "--master-finger" -> {
                if (!MinionConfig.normalFinger(value).matches("[0-9a-f]{64}")) {
                    throw new Invalid("--master-finger " + show(value) + " is not a sha256 fingerprint (64 hex digits, colons optional)");
                }
                masterFinger = value;
            }
            case "--id" -> id = value;
            case "--root" -> root = OptionText.path(name, value);
            case "--publish-port" -> publishPort = (int) OptionText.number(name, value, 1, 65535);
            case "--ip" -> innerIp = value;
            case "--cloud-id" -> cloudId = OptionText.number(name, value, Long.MIN_VALUE, Long.MAX_VALUE);
            case "--enroll-token" -> enrollToken = value;
            case "--heartbeat" -> {
                long seconds = OptionText.number(name, value, Long.MIN_VALUE, Long.MAX_VALUE);
                heartbeatSeconds = seconds < 1 || seconds > 3600 ? 0 : (int) seconds; // refused by check()
            }
            case "--master-failback" -> failbackSeconds = OptionText.number(name, value, 10, 86_400);
            case "--amqp-url" -> amqpUrl = value;
            case "--amqp-queue" -> amqpQueue = value;
            case "--amqp-result-exchange" -> amqpResultExchange = value;
            case "--amqp-result-routing-key" -> amqpResultRoutingKey = value;
            case "--amqp-log-routing-key" -> amqpLogRoutingKey = value;
            case "--amqp-engine-key" -> amqpEngineKey = OptionText.path(name, value);
            case "--amqp-reboot-command" -> {
                if (amqpRebootCommand == null) {
                    amqpRebootCommand = new ArrayList<>();
                }
                for (String word : value.split(" ")) {
                    if (!word.isEmpty()) {
                        amqpRebootCommand.add(word);
                    }
                }
            }
            default -> throw new IllegalStateException(name);
        }
    }

    /** The required options, then what {@code drover agent} checked before it started the agent (same messages). */
    private void check(boolean[] seen, Map<String, String> env) throws Invalid {
        if (master == null && amqpUrl == null) {
            throw new Invalid((id == null ? "--id and " : "") + "--master or --amqp-url " + (id == null ? "are" : "is")
                    + " required: --master to work with a Drover server, --amqp-url alone to take execution plans over AMQP only"
                    + hint());
        }
        if (id == null) {
            throw new Invalid("--id is required" + hint());
        }
        if (!io.drover.transport.protocol.Messages.validId(id)) {
            throw new Invalid(show(id) + " is not a valid agent id");
        }
        if (master == null) {
            for (String serverOnly : SERVER_ONLY) {
                if (seen[indexOf(serverOnly)]) {
                    throw new Invalid(serverOnly + " needs --master: without it the agent takes plans over AMQP only");
                }
            }
        } else {
            try {
                masters = AgentRunCommand.masters(master, publishPort);
            } catch (IllegalArgumentException e) {
                throw new Invalid("--master " + e.getMessage());
            }
        }
        if (heartbeatSeconds < 1 || heartbeatSeconds > 3600) {
            throw new Invalid("--heartbeat must be 1 to 3600 seconds");
        }
        if (seen[indexOf("--enroll-token")] && seen[indexOf("--enroll-token-file")]) {
            throw new Invalid("--enroll-token and --enroll-token-file are both given; give one");
        }
        if (!seen[indexOf("--enroll-token")] && !seen[indexOf("--enroll-token-file")]) {
            enrollToken = env.get(ENROLL_TOKEN_ENV);
        }
        enrollToken = enrollToken == null || enrollToken.isBlank() ? null : enrollToken.strip();
        if (amqpUrl != null) {
            if (!amqpUrl.matches("amqps?://.+")) {
                throw new Invalid("--amqp-url must start with amqp:// or amqps://");
            }
            if (amqpEngineKey != null && !Files.isReadable(amqpEngineKey)) {
                throw new Invalid("--amqp-engine-key " + show(amqpEngineKey.toString()) + " cannot be read");
            }
            if (amqpEngineKey != null && amqpAllowUnsigned) {
                throw new Invalid("--amqp-allow-unsigned contradicts --amqp-engine-key: plans are checked against the key");
            }
            if (amqpResultRoutingKey.equals(amqpLogRoutingKey)) {
                throw new Invalid("--amqp-log-routing-key is the results' key: Murano's engine would take a plan's first log "
                        + "message for its result; give another key");
            }
            if (amqpCaCert != null && !Files.isReadable(amqpCaCert)) {
                throw new Invalid("--amqp-cacert " + show(amqpCaCert.toString()) + " cannot be read");
            }
            if (amqpCaCert != null && !amqpUrl.startsWith("amqps://")) {
                throw new Invalid("--amqp-cacert needs an amqps:// --amqp-url");
            }
            if (amqpQueue == null) {
                amqpQueue = "drover-" + id;
            }
        }
    }



    /** The first line of a secret file, stripped; refused when the file is unreadable, empty or too large. */
    private static String secret(String name, Path file) throws Invalid {
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new Invalid(name + " " + show(file.toString()) + " is larger than " + MAX_FILE_BYTES + " bytes");
            }
            String text = Files.readString(file).strip();
            int newline = text.indexOf('\n');
            String first = (newline < 0 ? text : text.substring(0, newline)).strip();
            if (first.isEmpty()) {
                throw new Invalid(name + " " + show(file.toString()) + " is empty");
            }
            return first;
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            throw new Invalid(name + " " + show(file.toString()) + " cannot be read");
        }
    }

    private static int indexOf(String name) {
        for (int i = 0; i < OPTIONS.length; i++) {
            if (OPTIONS[i][0].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** An option (or --name=value of one), -h, --help, -V or --version: not taken as the previous option's value. */
    private static boolean isOptionName(String arg) {
        if (arg.equals("-h") || arg.equals("--help") || arg.equals("-V") || arg.equals("--version")) {
            return true;
        }
        int eq = arg.indexOf('=');
        return indexOf(eq > 2 ? arg.substring(0, eq) : arg) >= 0;
    }

    private static String hint() {
        return " (drover agent --help lists the options)";
    }

    /** A value quoted for a one-line message, at most 100 characters ({@link OptionText#show}). */
    static String show(String value) {
        return OptionText.show(value, 100);
    }

    /** {@code drover agent --help}: every option with its description and default. */
    static String usage() {
        StringBuilder out = new StringBuilder(4096);
        out.append("Usage: drover agent --master HOST[:PORT][,...] --id ID [--amqp-url URL] [OPTION]\n");
        out.append("       drover agent --amqp-url URL --id ID [OPTION]...\n");
        wrap(out, "Run the agent of this host. With --master it signs in to the Drover server and runs the jobs that target "
                + "it; with --amqp-url it also takes Murano execution plans from RabbitMQ; with --amqp-url alone it takes "
                + "execution plans over AMQP only (no server). (drover agent list|show|grains ask the server about agents.)", "", 80);
        out.append('\n');
        out.append("Options (--name VALUE or --name=VALUE):\n");
        for (String[] option : OPTIONS) {
            out.append("  ").append(option[0]);
            if (option[1] != null) {
                out.append(' ').append(option[1]);
            }
            out.append('\n');
            String text = option[2] + (option[3] == null ? " Required." : " Default: " + option[3] + ".");
            wrap(out, text, "      ", 80);
        }
        out.append("  -h, --help\n");
        wrap(out, "Show this help and exit.", "      ", 80);
        out.append("  -V, --version\n");
        wrap(out, "Print the version and exit.", "      ", 80);
        out.append('\n');
        wrap(out, "An unknown option or a bad value is refused with one line on standard error and exit code 2.", "", 80);
        return out.toString();
    }

    private static void wrap(StringBuilder out, String text, String indent, int width) {
        int lineStart = out.length();
        out.append(indent);
        int column = indent.length();
        for (String word : text.split(" ")) {
            boolean lineStarted = column > indent.length() || indent.isEmpty() && column > 0;
            if (lineStarted && column + 1 + word.length() > width) {
                out.append('\n').append(indent);
                column = indent.length();
            } else if (lineStarted) {
                out.append(' ');
                column++;
            }
            out.append(word);
            column += word.length();
        }
        if (out.length() > lineStart) {
            out.append('\n');
        }
    }
}

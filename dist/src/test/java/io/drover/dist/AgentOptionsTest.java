package io.drover.dist;

import io.drover.agent.OptionText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.transport.minion.MinionConfig.Master;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code drover agent}'s hand-written option parser: every option, the defaults, and what it refuses. */
class AgentOptionsTest {
    private static final String[] REQUIRED = {"--master", "10.0.0.1:14506", "--id", "web-1"};

    /** Parses REQUIRED plus these arguments, without the environment. */
    private static AgentOptions parse(String... more) throws OptionText.Invalid {
        return parse(Map.of(), more);
    }

    private static AgentOptions parse(Map<String, String> env, String... more) throws OptionText.Invalid {
        List<String> args = new ArrayList<>(List.of("agent"));
        args.addAll(List.of(REQUIRED));
        args.addAll(List.of(more));
        return AgentOptions.parse(args.toArray(String[]::new), 1, env, NO_DEFAULT_CONFIG);
    }

    /** The machine's /etc/drover/agent.yaml must not change what these tests parse. */
    private static final Path NO_DEFAULT_CONFIG = Path.of("/nonexistent/drover/agent.yaml");

    private static AgentOptions parseOnly(String... args) throws OptionText.Invalid {
        String[] all = new String[args.length + 1];
        all[0] = "agent";
        System.arraycopy(args, 0, all, 1, args.length);
        return AgentOptions.parse(all, 1, Map.of(), NO_DEFAULT_CONFIG);
    }

    @Test
    void defaults() throws Exception {
        AgentOptions o = parse();
        assertThat(o.master).isEqualTo("10.0.0.1:14506");
        assertThat(o.masters).containsExactly(new Master("10.0.0.1", 4505, 14506));
        assertThat(o.id).isEqualTo("web-1");
        assertThat(o.root).isEqualTo(Path.of("/"));
        assertThat(o.publishPort).isEqualTo(4505);
        assertThat(o.innerIp).isNull();
        assertThat(o.cloudId).isZero();
        assertThat(o.enrollToken).isNull();
        assertThat(o.heartbeatSeconds).isEqualTo(30);
        assertThat(o.failbackSeconds).as("failback is off unless asked for").isZero();
        assertThat(o.amqpUrl).isNull();
        assertThat(o.amqpQueue).isNull();
        assertThat(o.amqpResultExchange).isEmpty();
        assertThat(o.amqpResultRoutingKey).isEqualTo("drover-results");
        assertThat(o.amqpReplyTo).isFalse();
        assertThat(o.amqpEngineKey).isNull();
        assertThat(o.amqpRebootCommand).isNull();
        assertThat(o.help).isFalse();
        assertThat(o.version).isFalse();
    }

    static Stream<Arguments> everyOption() {
        return Stream.of(
                option("--root", "/tmp/host-1", o -> o.root, Path.of("/tmp/host-1")),
                option("--publish-port", "14505", o -> o.masters.getFirst().publishPort(), 14505),
                option("--publish-port", "1", o -> o.publishPort, 1),
                option("--publish-port", "65535", o -> o.publishPort, 65535),
                option("--ip", "10.0.1.1", o -> o.innerIp, "10.0.1.1"),
                option("--cloud-id", "7", o -> o.cloudId, 7L),
                option("--cloud-id", "-1", o -> o.cloudId, -1L),
                option("--enroll-token", " tok-1 ", o -> o.enrollToken, "tok-1"),
                option("--enroll-token", "  ", o -> o.enrollToken, null),
                option("--heartbeat", "1", o -> o.heartbeatSeconds, 1),
                option("--heartbeat", "3600", o -> o.heartbeatSeconds, 3600),
                option("--master-failback", "60", o -> o.failbackSeconds, 60L),
                option("--master-failback", "86400", o -> o.failbackSeconds, 86_400L),
                option("--amqp-url", "amqp://guest:guest@127.0.0.1:5672/%2f", o -> o.amqpUrl, "amqp://guest:guest@127.0.0.1:5672/%2f"),
                option("--amqp-url", "amqps://u:p@mq/v", o -> o.amqpQueue, "drover-web-1"),
                option("--amqp-result-exchange", "ex", o -> o.amqpResultExchange, "ex"),
                option("--amqp-result-routing-key", "results", o -> o.amqpResultRoutingKey, "results"),
                option("--amqp-log-routing-key", "logs", o -> o.amqpLogRoutingKey, "logs"),
                option("--amqp-reboot-command", "sudo  /sbin/reboot now", o -> o.amqpRebootCommand, List.of("sudo", "/sbin/reboot", "now")),
                option("--id", "a.b_c@d-1", o -> o.id, "a.b_c@d-1"),
                option("--master-finger", "AB:" + "cd".repeat(31), o -> o.masterFinger, "AB:" + "cd".repeat(31)),
                option("--master", "a,b:14506", o -> o.masters, List.of(new Master("a", 4505, 4506), new Master("b", 4505, 14506))));
    }

    private static Arguments option(String name, String value, Function<AgentOptions, Object> field, Object expected) {
        return Arguments.of(name, value, field, expected);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyOption")
    void everyOptionAsTwoArgumentsOrWithEquals(String name, String value, Function<AgentOptions, Object> field, Object expected)
            throws Exception {
        List<String> rest = new ArrayList<>(List.of(name, value));
        String[] required = REQUIRED;
        if (name.equals("--master") || name.equals("--id")) { // replaces the required one
            required = name.equals("--master") ? new String[] {"--id", "web-1"} : new String[] {"--master", "10.0.0.1:14506"};
        }
        List<String> separate = new ArrayList<>(List.of(required));
        separate.addAll(rest);
        assertThat(field.apply(parseOnly(separate.toArray(String[]::new)))).isEqualTo(expected);
        List<String> joined = new ArrayList<>(List.of(required));
        joined.add(name + "=" + value);
        assertThat(field.apply(parseOnly(joined.toArray(String[]::new)))).isEqualTo(expected);
    }

    @Test
    void flagsAndRepeatableOptions() throws Exception {
        assertThat(parse("--amqp-reply-to").amqpReplyTo).isTrue();
        assertThat(parse("--amqp-reply-to=true").amqpReplyTo).isTrue();
        assertThat(parse("--amqp-reply-to=false").amqpReplyTo).isFalse();
        assertThat(parse("--amqp-reboot-command", "systemctl reboot", "--amqp-reboot-command=--force").amqpRebootCommand)
                .containsExactly("systemctl", "reboot", "--force");
        // a value may start with '-' when it is not an option's name
        assertThat(parse("--cloud-id", "-3").cloudId).isEqualTo(-3);
        assertThat(parse("--amqp-result-routing-key", "-x").amqpResultRoutingKey).isEqualTo("-x");
        // the order does not matter
        assertThat(parseOnly("--id", "w", "--root", "/r", "--master", "m").root).isEqualTo(Path.of("/r"));
    }

    @Test
    void theEnrollmentTokenComesFromTheEnvironmentUnlessGiven() throws Exception {
        Map<String, String> env = Map.of("DROVER_ENROLL_TOKEN", " from-env\n");
        assertThat(parse(env).enrollToken).isEqualTo("from-env");
        assertThat(parse(env, "--enroll-token", "given").enrollToken).isEqualTo("given");
        assertThat(parse(Map.of("DROVER_ENROLL_TOKEN", "")).enrollToken).isNull();
    }

    @Test
    void amqpUrlWithoutMasterIsAnAmqpOnlyAgent() throws Exception {
        AgentOptions o = parseOnly("--amqp-url", "amqp://mq", "--id", "web-1");
        assertThat(o.masters).as("no Drover server").isNull();
        assertThat(o.amqpQueue).isEqualTo("drover-web-1");
        assertThat(parseOnly("--amqp-url", "amqp://mq", "--id", "web-1", "--master", "m").masters).hasSize(1);
        assertThat(AgentOptions.usage()).contains("drover agent --amqp-url URL --id ID [OPTION]...");
        assertThat(AgentOptions.usage().replaceAll("\\s+", " ")).contains("with --amqp-url alone it takes execution plans over AMQP only");
    }

    @Test
    void amqpEngineKeyMustBeReadable(@TempDir Path dir) throws Exception {
        Path key = Files.writeString(dir.resolve("engine.pem"), "-----BEGIN PUBLIC KEY-----\n");
        AgentOptions o = parse("--amqp-url", "amqp://mq", "--amqp-engine-key", key.toString(), "--amqp-queue", "q");
        assertThat(o.amqpEngineKey).isEqualTo(key);
        assertThat(o.amqpQueue).isEqualTo("q");
        assertThatThrownBy(() -> parse("--amqp-url", "amqp://mq", "--amqp-engine-key", dir.resolve("none.pem").toString()))
                .hasMessage("--amqp-engine-key '" + dir.resolve("none.pem") + "' cannot be read");
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                // missing options and values
                Arguments.of(List.of(), "--id and --master or --amqp-url are required: --master to work with a Drover server, "
                        + "--amqp-url alone to take execution plans over AMQP only (drover agent --help lists the options)"),
                Arguments.of(List.of("--id", "x"), "--master or --amqp-url is required: --master to work with a Drover server, "
                        + "--amqp-url alone to take execution plans over AMQP only (drover agent --help lists the options)"),
                Arguments.of(List.of("--amqp-url", "amqp://mq"), "--id is required (drover agent --help lists the options)"),
                Arguments.of(List.of("--amqp-url", "amqp://mq", "--id", "x", "--heartbeat", "5"),
                        "--heartbeat needs --master: without it the agent takes plans over AMQP only"),
                Arguments.of(List.of("--amqp-url", "amqp://mq", "--id", "x", "--enroll-token", "t"),
                        "--enroll-token needs --master: without it the agent takes plans over AMQP only"),
                Arguments.of(List.of("--master", "m"), "--id is required (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id"), "--id needs a value: --id ID (drover agent --help lists the options)"),
                Arguments.of(List.of("--id", "--master", "m"), "--id needs a value: --id ID (drover agent --help lists the options)"),
                Arguments.of(List.of("--id", "x", "--master", "m", "--root", "--help"), "--root needs a value: --root DIR (drover agent --help lists the options)"),
                Arguments.of(List.of("--id", "x", "--master", "m", "--heartbeat"), "--heartbeat needs a value: --heartbeat SECONDS (drover agent --help lists the options)"),
                // unknown options and stray arguments
                Arguments.of(List.of("--master", "m", "--id", "x", "--foo"), "unknown option '--foo' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--foo=bar"), "unknown option '--foo' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "-x"), "unknown option '-x' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--"), "unknown option '--' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--MASTER", "n"), "unknown option '--MASTER' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "extra"), "unexpected argument 'extra' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--f\u0000oo"), "unknown option '--f\\u0000oo' (drover agent --help lists the options)"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--id", "y"), "--id is given more than once"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--amqp-reply-to=yes"), "--amqp-reply-to takes no value (or =true, =false), not 'yes'"),
                // bad numbers
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "abc"), "--publish-port 'abc' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "0"), "--publish-port must be 1 to 65535, not 0"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "65536"), "--publish-port must be 1 to 65535, not 65536"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "99999999999999999999"), "--publish-port '99999999999999999999' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", ""), "--publish-port '' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "+4505"), "--publish-port '+4505' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", " 4505"), "--publish-port ' 4505' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--publish-port", "\u0664\u0665\u0660\u0665"), "--publish-port '\u0664\u0665\u0660\u0665' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--cloud-id", "1.5"), "--cloud-id '1.5' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--cloud-id", "9223372036854775808"), "--cloud-id '9223372036854775808' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--heartbeat", "0"), "--heartbeat must be 1 to 3600 seconds"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--heartbeat", "3601"), "--heartbeat must be 1 to 3600 seconds"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--heartbeat", "99999999999"), "--heartbeat must be 1 to 3600 seconds"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--heartbeat", "x"), "--heartbeat 'x' is not a whole number"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--master-failback", "9"), "--master-failback must be 10 to 86400, not 9"),
                Arguments.of(List.of("--master", "m", "--id", "x", "--master-failback", "1e3"), "--master-failback '1e3' is not a whole number"),
                // the checks drover agent made before it started (same messages as with picocli)
                Arguments.of(List.of("--master", "m", "--id", "a/b"), "'a/b' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", ""), "'' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "we\u0000b"), "'we\\u0000b' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "web\n1"), "'web\\u000a1' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "w\u202eeb"), "'w\\u202eeb' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "w\u2028eb"), "'w\\u2028eb' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "wéb"), "'wéb' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "w\uD83D\uDE00"), "'w\uD83D\uDE00' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "w\uD83Dx"), "'w\\ud83dx' is not a valid agent id"),
                Arguments.of(List.of("--master", "m", "--id", "x".repeat(300)), "'" + "x".repeat(100) + "...' is not a valid agent id"),
                Arguments.of(List.of("--master", "a:x", "--id", "w"), "--master port 'x' is not a number"),
                Arguments.of(List.of("--master", "a:70000", "--id", "w"), "--master port 70000 is not between 1 and 65535"),
                Arguments.of(List.of("--master", "a:\u0664\u0665", "--id", "w"), "--master port '\u0664\u0665' is not a number"),
                Arguments.of(List.of("--master", "a,,b", "--id", "w"), "--master '' is not HOST or HOST:PORT"),
                Arguments.of(List.of("--master", "h\u0000st", "--id", "w"), "--master 'h\\u0000st' is not HOST or HOST:PORT"),
                Arguments.of(List.of("--master", "h\u00e9st", "--id", "w"), "--master 'h\u00e9st' is not HOST or HOST:PORT"),
                Arguments.of(List.of("--master", "", "--id", "w"), "--master '' is not HOST or HOST:PORT"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--master-finger", "abc"), "--master-finger 'abc' is not a sha256 fingerprint (64 hex digits, colons optional)"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--amqp-url", "http://mq"), "--amqp-url must start with amqp:// or amqps://"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--amqp-url", "amqp://"), "--amqp-url must start with amqp:// or amqps://"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--amqp-url", "amqp://\nx"), "--amqp-url must start with amqp:// or amqps://"),
                // paths
                Arguments.of(List.of("--master", "m", "--id", "w", "--root", "/tmp/a\u0000b"), "--root '/tmp/a\\u0000b' is not a valid path"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--root", ""), "--root needs a path, not ''"),
                Arguments.of(List.of("--master", "m", "--id", "w", "--amqp-engine-key", "k\u0000"), "--amqp-engine-key 'k\\u0000' is not a valid path"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refused")
    void refusedWithOneLineNamingTheOption(List<String> args, String message) {
        assertThatThrownBy(() -> parseOnly(args.toArray(String[]::new))).isInstanceOf(OptionText.Invalid.class)
                .hasMessage(message).message().doesNotContain("\n", "\r", "\u0000", "\u2028", "\u202e");
    }

    @Test
    void oddUnicodeIsKeptInValuesThatAcceptIt() throws Exception {
        AgentOptions o = parse("--enroll-token", "t\u00e9\uD83D\uDE00", "--root", "/tmp/h\u00f4te 1", "--ip", "\u0661\u0660.0.0.1",
                "--amqp-url", "amqp://u:p\u00e9@mq/v", "--amqp-result-routing-key", "r\u202e");
        assertThat(o.enrollToken).isEqualTo("t\u00e9\uD83D\uDE00");
        assertThat(o.root).isEqualTo(Path.of("/tmp/h\u00f4te 1"));
        assertThat(o.innerIp).isEqualTo("\u0661\u0660.0.0.1");
        assertThat(o.amqpUrl).isEqualTo("amqp://u:p\u00e9@mq/v");
        assertThat(o.amqpResultRoutingKey).isEqualTo("r\u202e");
    }

    @Test
    void helpAndVersionStopParsing() throws Exception {
        for (String h : List.of("-h", "--help")) {
            assertThat(parseOnly(h).help).isTrue();
            assertThat(parseOnly("--id", "x", h, "--unknown").help).isTrue(); // nothing after it is read
            assertThat(parseOnly("--publish-port", "1", h).help).isTrue(); // no required options needed
        }
        for (String v : List.of("-V", "--version")) {
            assertThat(parseOnly(v).version).isTrue();
        }
        // an error before it still wins
        assertThatThrownBy(() -> parseOnly("--foo", "--help")).hasMessageStartingWith("unknown option '--foo'");
    }

    @Test
    void helpListsEveryOptionWithItsDescriptionAndDefault() {
        String usage = AgentOptions.usage();
        for (String[] line : new String[][] {
                {"--master HOST[:PORT][,HOST[:PORT]...]", "Default: none; --master, --amqp-url or both are required (--amqp-url"},
                {"--id ID", "Required."},
                {"--root DIR", "Default: /."},
                {"--publish-port PORT", "Default: 4505."},
                {"--ip ADDR", "Default: its first non-loopback IPv4 address."},
                {"--cloud-id N", "Default: 0."},
                {"--enroll-token TOKEN", "Default: $DROVER_ENROLL_TOKEN."},
                {"--heartbeat SECONDS", "Default: 30."},
                {"--amqp-url URL", "Default: none."},
                {"--amqp-queue QUEUE", "Default: drover-<id>."},
                {"--amqp-result-exchange EXCHANGE", "Default: the default exchange."},
                {"--amqp-result-routing-key KEY", "Default: drover-results."},
                {"--amqp-log-routing-key KEY", "Default: none: not sent over AMQP."},
                {"--amqp-reply-to\n", "Default: off."},
                {"--amqp-engine-key PEM", "Default: none: every plan is refused unless --amqp-allow-unsigned."},
                {"--amqp-allow-unsigned\n", "Default: off."},
                {"--amqp-cacert PEM", "Default: the system's CAs."},
                {"--amqp-password-file FILE", "Default: none."},
                {"--enroll-token-file FILE", "Default: none."},
                {"--config FILE", "Default: /etc/drover/agent.yaml when it exists."},
                {"--amqp-reboot-command CMD", "Default: none, the request is logged."},
                {"-h, --help", "Show this help and exit."},
                {"-V, --version", "Print the version and exit."}}) {
            assertThat(usage).contains("  " + line[0]);
            int at = usage.indexOf("  " + line[0]);
            int next = usage.indexOf("\n  -", at + 3);
            String entry = usage.substring(at, next < 0 ? usage.length() : next).replaceAll("\\s+", " ");
            assertThat(entry).as(line[0]).contains(line[1]);
        }
        assertThat(usage).startsWith("Usage: drover agent --master HOST[:PORT][,...] --id ID [--amqp-url URL] [OPTION]\n"
                + "       drover agent --amqp-url URL --id ID [OPTION]...\n");
        assertThat(usage.lines()).allMatch(l -> l.length() <= 80, "lines of at most 80 characters");
    }

    @Test
    void aConfigFileGivesWhatTheCommandLineLeavesOut(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("enroll.token"), "tok-from-file\nignored second line\n");
        Path password = Files.writeString(dir.resolve("amqp.password"), "s3cret\n");
        Path file = Files.writeString(dir.resolve("agent.yaml"), """
                ---
                # the agent of web-1
                master: 10.0.0.9:14506
                id: from-file
                heartbeat: 15   # seconds
                root: '/srv/it''s here'
                amqp-url: "amqps://drover@mq:5671/%2f"
                amqp-password-file: PASSWORD
                amqp-reply-to: true
                amqp-allow-unsigned: false
                amqp-reboot-command: systemctl reboot
                enroll-token-file: TOKEN
                """.replace("PASSWORD", password.toString()).replace("TOKEN", token.toString()));
        AgentOptions o = parseOnly("--config", file.toString(), "--id", "from-command-line");
        assertThat(o.config).isEqualTo(file);
        assertThat(o.id).as("the command line wins").isEqualTo("from-command-line");
        assertThat(o.master).isEqualTo("10.0.0.9:14506");
        assertThat(o.heartbeatSeconds).isEqualTo(15);
        assertThat(o.root).isEqualTo(Path.of("/srv/it's here"));
        assertThat(o.amqpUrl).isEqualTo("amqps://drover@mq:5671/%2f");
        assertThat(o.amqpPassword).isEqualTo("s3cret");
        assertThat(o.amqpReplyTo).isTrue();
        assertThat(o.amqpAllowUnsigned).isFalse();
        assertThat(o.amqpRebootCommand).containsExactly("systemctl", "reboot");
        assertThat(o.enrollToken).as("the first line of its file").isEqualTo("tok-from-file");
        assertThat(parseOnly("--config", file.toString(), "--enroll-token", "given").enrollToken)
                .as("a token on the command line wins over the file's token file").isEqualTo("given");
        // the default file is read when it exists
        assertThat(AgentOptions.parse(new String[] {"agent"}, 1, Map.of(), file).master).isEqualTo("10.0.0.9:14506");
    }

    static Stream<Arguments> badConfigFiles() {
        return Stream.of(
                Arguments.of("master: m\nid: w\nmastr: n\n", "unknown setting 'mastr' in %s line 3 (drover agent --help lists the options)"),
                Arguments.of("master: m\nid: w\nconfig: other.yaml\n", "unknown setting 'config' in %s line 3 (drover agent --help lists the options)"),
                Arguments.of("master: m\nid: w\nid: v\n", "--id is given more than once (%s line 3)"),
                Arguments.of("master: m\nid: w\nheartbeat: often\n", "--heartbeat 'often' is not a whole number (%s line 3)"),
                Arguments.of("master: m\nid: w\namqp-reply-to: yes\n", "--amqp-reply-to takes no value (or =true, =false), not 'yes' (%s line 3)"),
                Arguments.of("master:\n  host: m\n", "%s line 1: the value is missing"),
                Arguments.of("master: m\n  id: w\n", "%s line 2: nested values and lists are not supported; write 'name: value'"),
                Arguments.of("- master: m\n", "%s line 1: nested values and lists are not supported; write 'name: value'"),
                Arguments.of("master m\n", "%s line 1: expected 'name: value', not 'master m'"),
                Arguments.of("Master: m\n", "%s line 1: expected 'name: value', not 'Master: m'"),
                Arguments.of("master:m\n", "%s line 1: expected a space after 'master:'"),
                Arguments.of("master: 'm\n", "%s line 1: the quoted value is not closed"),
                Arguments.of("master: \"m\\n\"\n", "%s line 1: only \\\" and \\\\ are understood in a \"…\" value"),
                Arguments.of("master: 'm' x\n", "%s line 1: unexpected text after the quoted value"),
                Arguments.of("master: *anchor\n", "%s line 1: quote a value that starts with '*'"),
                Arguments.of("master: m\u0000x\n", "%s line 1: control characters are not allowed"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badConfigFiles")
    void aBadConfigFileIsRefusedNamingTheLine(String content, String message, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("agent.yaml"), content);
        assertThatThrownBy(() -> parseOnly("--config", file.toString())).isInstanceOf(OptionText.Invalid.class)
                .hasMessage(message.formatted(file)).message().doesNotContain("\n", "\u0000");
    }

    @Test
    void unreadableOddOrHugeFilesAreRefused(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> parseOnly("--config", dir.resolve("absent.yaml").toString()))
                .hasMessage("--config '" + dir.resolve("absent.yaml") + "' cannot be read");
        Path latin1 = Files.write(dir.resolve("latin1.yaml"), new byte[] {'i', 'd', ':', ' ', (byte) 0xe9, '\n'});
        assertThatThrownBy(() -> parseOnly("--config", latin1.toString())).hasMessage("--config '" + latin1 + "' is not UTF-8 text");
        Path huge = Files.writeString(dir.resolve("huge.yaml"), "# " + "x".repeat(70_000));
        assertThatThrownBy(() -> parseOnly("--config", huge.toString())).hasMessage("--config '" + huge + "' is larger than 65536 bytes");
        Path empty = Files.writeString(dir.resolve("empty.token"), "\n  \n");
        assertThatThrownBy(() -> parse("--enroll-token-file", empty.toString())).hasMessage("--enroll-token-file '" + empty + "' is empty");
        assertThatThrownBy(() -> parse("--amqp-password-file", dir.resolve("none").toString()))
                .hasMessage("--amqp-password-file '" + dir.resolve("none") + "' cannot be read");
        Path token = Files.writeString(dir.resolve("t"), "tok");
        assertThatThrownBy(() -> parse("--enroll-token", "x", "--enroll-token-file", token.toString()))
                .hasMessage("--enroll-token and --enroll-token-file are both given; give one");
    }

    @Test
    void amqpTrustOptionsAreChecked(@TempDir Path dir) throws Exception {
        Path key = Files.writeString(dir.resolve("engine.pem"), "-----BEGIN PUBLIC KEY-----\n");
        assertThatThrownBy(() -> parse("--amqp-url", "amqp://mq", "--amqp-engine-key", key.toString(), "--amqp-allow-unsigned"))
                .hasMessage("--amqp-allow-unsigned contradicts --amqp-engine-key: plans are checked against the key");
        assertThatThrownBy(() -> parse("--amqp-url", "amqp://mq", "--amqp-cacert", key.toString()))
                .hasMessage("--amqp-cacert needs an amqps:// --amqp-url");
        assertThatThrownBy(() -> parse("--amqp-url", "amqps://mq", "--amqp-cacert", dir.resolve("none.pem").toString()))
                .hasMessage("--amqp-cacert '" + dir.resolve("none.pem") + "' cannot be read");
        AgentOptions o = parse("--amqp-url", "amqps://mq", "--amqp-cacert", key.toString(), "--amqp-allow-unsigned");
        assertThat(o.amqpCaCert).isEqualTo(key);
        assertThat(o.amqpAllowUnsigned).isTrue();
    }

    @Test
    void theCommandPrintsOneLineAndExitsWith2OrPrintsHelp() throws Exception {
        Run bad = run("agent", "--master", "m", "--id", "x", "--publish-port", "abc");
        assertThat(bad.code).isEqualTo(2);
        assertThat(bad.err).isEqualTo("error: --publish-port 'abc' is not a whole number" + System.lineSeparator());
        assertThat(bad.out).isEmpty();
        Run unknown = run("agent", "--bogus");
        assertThat(unknown.code).isEqualTo(2);
        assertThat(unknown.err.lines()).containsExactly("error: unknown option '--bogus' (drover agent --help lists the options)");
        Run missing = run("agent", "--id", "x");
        assertThat(missing.code).isEqualTo(2);
        assertThat(missing.err.lines()).containsExactly("error: --master or --amqp-url is required: --master to work with a Drover"
                + " server, --amqp-url alone to take execution plans over AMQP only (drover agent --help lists the options)");
        Run help = run("agent", "--help");
        assertThat(help.code).isZero();
        assertThat(help.out).isEqualTo(AgentOptions.usage());
        assertThat(help.err).isEmpty();
        Run version = run("agent", "-V");
        assertThat(version.code).isZero();
        assertThat(version.out).startsWith("drover agent ");
        Run justAgent = run("agent");
        assertThat(justAgent.code).isEqualTo(2);
        assertThat(justAgent.err.lines()).containsExactly("error: --id and --master or --amqp-url are required: --master to work"
                + " with a Drover server, --amqp-url alone to take execution plans over AMQP only (drover agent --help lists the options)");
    }

    private record Run(int code, String out, String err) {
    }

    private static synchronized Run run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}

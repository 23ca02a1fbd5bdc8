package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.drover.model.inventory.ImportResult;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Drives the drover command the way an operator does, against a real server on loopback. */
class CliEndToEndTest {
    static final Path DEMO = Path.of("..", "examples", "inventory", "demo.yaml");

    TestServer server;
    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        server = TestServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** Exit code and everything printed on stdout and stderr. */
    record Run(int exit, String out, String err) {
    }

    Run drover(String... args) {
        String[] full = new String[args.length + 4];
        full[0] = args[0];
        System.arraycopy(args, 1, full, 1, args.length - 1);
        int at = args.length;
        full[at] = "--server";
        full[at + 1] = server.url();
        full[at + 2] = "--token";
        full[at + 3] = server.adminToken();
        return raw(full);
    }

    static Run raw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = cli(out).setErr(new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static CommandLine cli(Writer out) {
        return Main.commandLine().setOut(new PrintWriter(out, true));
    }

    @Test
    void importsTheDemoInventoryOnceAndASecondImportChangesNothing() {
        Run first = drover("inventory", "import", DEMO.toString());
        assertThat(first.exit()).as(first.err()).isZero();
        assertThat(first.out()).contains("18 created, 0 updated, 0 unchanged");
        Run second = drover("inventory", "import", DEMO.toString());
        assertThat(second.out()).contains("0 created, 0 updated, 16 unchanged");

        Run tree = drover("inventory", "tree", "2");
        assertThat(tree.out()).contains("demo shop (biz 2)").contains("mysql (module 22): 2 host(s), 2 service instance(s)")
                .contains("idle host (module 23, idle)");
        Run hosts = drover("host", "list", "--module", "22");
        assertThat(hosts.out()).contains("10.0.2.1").contains("10.0.2.2").doesNotContain("10.0.1.1")
                .contains("2 of 2 host(s)");
        Run json = drover("host", "show", "5", "-o", "json");
        assertThat(json.out()).contains("\"bk_host_innerip\" : \"10.0.2.1\"");
        Run services = drover("service", "list", "--module", "22");
        assertThat(services.out()).contains("mysql_user=monitor").contains("mysqld:3306");
    }

    @Test
    void aBadFileImportsNothingAndTheErrorNamesRecordAndField() throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, Files.readString(DEMO).replace("bk_host_innerip: 10.0.2.2", "bk_host_innerip: 10.0.2.257"));
        Run run = drover("inventory", "import", bad.toString());
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.err()).contains("error:").contains("hosts[5].bk_host_innerip: '10.0.2.257' is not an IPv4 or IPv6 address")
                .contains("[422 validation_failed]");
        Run businesses = drover("biz", "list");
        assertThat(businesses.out()).contains("(none)");
    }

    @Test
    void failuresExitNonZeroWithTheServersMessage() {
        Run unauthorized = raw("host", "list", "--server", server.url(), "--token", "drv_wrong");
        assertThat(unauthorized.exit()).isEqualTo(1);
        assertThat(unauthorized.err()).contains("the token is unknown, revoked or expired [401 unauthorized]");
        Run missing = drover("host", "show", "999");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("host 999 does not exist [404 not_found]");
        Run unreachable = raw("biz", "list", "--server", "http://127.0.0.1:1", "--token", "x");
        assertThat(unreachable.exit()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the Drover server at http://127.0.0.1:1");
    }

    @Test
    void tokensAreCreatedListedAndRevokedAndMutationsAudited() {
        Run created = drover("token", "create", "ci", "--role", "viewer", "--biz", "2");
        assertThat(created.exit()).as(created.err()).isZero();
        String secret = created.out().lines().filter(l -> l.startsWith("drv_")).findFirst().orElseThrow();
        Run asViewer = raw("biz", "list", "--server", server.url(), "--token", secret);
        assertThat(asViewer.exit()).isZero();
        Run list = drover("token", "list");
        assertThat(list.out()).contains("ci").contains("viewer");
        Run revoke = drover("token", "revoke", "2");
        assertThat(revoke.out()).contains("token 2 revoked");
        assertThat(raw("biz", "list", "--server", server.url(), "--token", secret).exit()).isEqualTo(1);
        Run audit = drover("audit");
        assertThat(audit.out()).contains("POST    /api/v1/tokens").contains("DELETE  /api/v1/tokens/2");
    }

    @Test
    void eventsArePrintedLiveAsTheyHappen() throws Exception {
        drover("inventory", "import", DEMO.toString());
        StringWriter seen = new StringWriter();
        StringWriter status = new StringWriter();
        Thread follower = Thread.ofVirtual().start(() -> cli(seen).setErr(new PrintWriter(status, true)).execute("events",
                "--tag", "drover/inventory/host/*", "--server", server.url(), "--token", server.adminToken()));
        await().atMost(Duration.ofSeconds(10)).until(() -> status.toString()
                .contains("following events matching drover/inventory/host/* (Ctrl-C to stop)"));
        Run move = drover("host", "move", "4", "--module", "20");
        assertThat(move.exit()).as(move.err()).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.toString()
                .contains("drover/inventory/host/moved  host 4 (biz 2)"));
        server.close();
        follower.join(Duration.ofSeconds(10));
        server = TestServer.start();
    }

    @Test
    void theQuickstartInventoryImportIsIdempotent() {
        ImportResult first = QuickstartCommand.importDemo(server.server());
        assertThat(first.created()).isEqualTo(18);
        ImportResult second = QuickstartCommand.importDemo(server.server());
        assertThat(second).isEqualTo(new ImportResult(0, 0, 16));
    }

    @Test
    void everyCommandAndGroupAnswersHelp() {
        java.util.List<java.util.List<String>> paths = new java.util.ArrayList<>();
        collect(Main.commandLine(), new java.util.ArrayList<>(), paths);
        assertThat(paths).as("commands found").hasSizeGreaterThan(50);
        for (java.util.List<String> path : paths) {
            for (String flag : new String[] {"--help", "-h"}) {
                java.util.List<String> args = new java.util.ArrayList<>(path);
                args.add(flag);
                Run help = raw(args.toArray(String[]::new));
                assertThat(help.exit()).as("drover %s: %s", String.join(" ", args), help.err()).isZero();
                assertThat(help.out()).as("drover %s", String.join(" ", args)).contains("Usage: drover");
            }
        }
    }

    static void collect(CommandLine cli, java.util.List<String> path, java.util.List<java.util.List<String>> into) {
        into.add(path);
        cli.getSubcommands().forEach((name, sub) -> {
            java.util.List<String> longer = new java.util.ArrayList<>(path);
            longer.add(name);
            collect(sub, longer, into);
        });
    }

    @Test
    void serverHelpDocumentsEverySetting() {
        Run help = raw("server", "--help");
        for (Setting s : Setting.values()) {
            assertThat(help.out()).contains(s.flag()).contains(s.envVar());
        }
        assertThat(help.out()).contains("--config");
    }
}

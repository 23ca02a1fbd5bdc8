package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.drover.core.testing.TestCa;
import io.drover.core.tls.Pem;
import io.drover.model.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code drover enroll create --install-command} against a stand-in for the server's API over HTTPS: the command is
 * pinned to the key of the certificate the CLI verified, installs the newest package of each architecture, and never
 * holds the token, which is printed once on a line of its own; nothing is created when the command cannot be made.
 */
class EnrollInstallCommandTest {
    static final String TOKEN = "drv_enroll_" + "S3cr3t".repeat(7);
    static final String FINGER = String.join(":", java.util.Collections.nCopies(32, "5e"));
    @TempDir
    static Path dir;
    static TestCa ca;
    static TestCa.Leaf leaf;

    HttpServer api;
    final AtomicInteger created = new AtomicInteger();
    String packages = """
            [{"version": "1.2.0", "os": "linux", "arch": "x86_64", "file_name": "drover-agent-1.2.0-linux-x86_64.tar.gz",
              "sha256": "%s", "size_bytes": 10, "uploaded_at": "2026-12-01T10:00:00Z", "uploaded_by": "admin"},
             {"version": "1.10.0", "os": "linux", "arch": "x86_64", "file_name": "drover-agent-1.10.0-linux-x86_64.tar.gz",
              "sha256": "%s", "size_bytes": 10, "uploaded_at": "2026-12-01T10:00:00Z", "uploaded_by": "admin"},
             {"version": "1.2.0", "os": "linux", "arch": "aarch64", "file_name": "drover-agent-1.2.0-linux-aarch64.tar.gz",
              "sha256": "%s", "size_bytes": 10, "uploaded_at": "2026-12-01T10:00:00Z", "uploaded_by": "system:build"}]
            """.formatted("1".repeat(64), "2".repeat(64), "3".repeat(64));

    @BeforeAll
    static void authority() {
        ca = TestCa.create(dir, "operators-ca");
        leaf = ca.server("drover.example");
    }

    @AfterEach
    void stop() {
        if (api != null) {
            api.stop(0);
        }
    }

    /** Starts the stand-in, over HTTPS with the test CA's leaf or over plain HTTP; answers its URL. */
    String start(boolean https) throws Exception {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (https) {
            HttpsServer server = HttpsServer.create(loopback, 0);
            server.setHttpsConfigurator(new HttpsConfigurator(serverContext()));
            api = server;
        } else {
            api = HttpServer.create(loopback, 0);
        }
        api.createContext("/api/v1/", this::answer);
        api.start();
        return (https ? "https" : "http") + "://localhost:" + api.getAddress().getPort();
    }

    void answer(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String body = switch (exchange.getRequestMethod() + " " + path) {
            case "GET /api/v1/openapi.json" -> "{}";
            case "GET /api/v1/master" -> "{\"fingerprint\": \"" + FINGER + "\", \"public_key\": \"x\"}";
            case "GET /api/v1/agent-packages" -> packages;
            case "POST /api/v1/enrollment-tokens" -> {
                created.incrementAndGet();
                yield "{\"info\": {\"id\": 7, \"name\": \"web\", \"bk_biz_id\": 2, \"uses\": 0}, \"token\": \"" + TOKEN + "\"}";
            }
            default -> null;
        };
        byte[] bytes = (body == null ? "{\"status\": 404, \"detail\": \"no route\", \"code\": \"not_found\"}" : body)
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(body == null ? 404 : path.endsWith("enrollment-tokens") ? 201 : 200, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    static SSLContext serverContext() throws Exception {
        List<java.security.cert.X509Certificate> chain = Pem.certificates(Files.readString(leaf.cert()));
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", Pem.privateKey(Files.readString(leaf.key())), new char[0], chain.toArray(Certificate[]::new));
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    record Run(int exit, String out, String err) {
    }

    static Run drover(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = DroverCommand.commandLine(out, err);
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    Run create(String url, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("enroll", "create", "web", "--biz", "2", "--install-command",
                "--server", url, "--token", "drv_admin", "--cacert", ca.cert().toString()));
        args.addAll(List.of(more));
        return drover(args.toArray(String[]::new));
    }

    @Test
    void theCommandIsPinnedToTheVerifiedKeyAndTheTokenIsPrintedApart() throws Exception {
        String url = start(true);

        Run run = create(url, "--master", "drover.example:4506", "--token-file", "/etc/drover/enroll.token");

        assertThat(run.exit()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(1)).isEqualTo(TOKEN);
        assertThat(lines).contains("  (umask 077; rm -f /etc/drover/enroll.token; cat > /etc/drover/enroll.token)"
                + "   # paste the token, Enter, Ctrl-D");
        String command = lines.getLast();
        assertThat(command).startsWith("sh -c '").doesNotContain(TOKEN).doesNotContain("S3cr3t")
                .contains("--pinnedpubkey sha256//" + TestCa.spkiSha256(leaf.cert()) + " ")
                .contains("x86_64) v=1.10.0 a=x86_64 s=" + "2".repeat(64))
                .contains("aarch64) v=1.2.0 a=aarch64 s=" + "3".repeat(64))
                .contains("\"" + url + "/api/v1/agent-packages/$v/$a\"")
                .contains("install --master drover.example:4506 --master-finger " + FINGER)
                .contains("t=/etc/drover/enroll.token;");
        assertThat(run.out()).contains("It downloads drover-agent 1.10.0 for x86_64, 1.2.0 for aarch64 from " + url
                + ", accepting only the key of its certificate")
                .contains("warning: the command names localhost, which other hosts do not reach");
        assertThat(created).hasValue(1);
    }

    @Test
    void asJsonTheCommandIsAFieldBesideTheToken() throws Exception {
        String url = start(true);

        Run run = create(url, "-o", "json");

        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode out = Json.json().readTree(run.out());
        assertThat(out.path("token").asText()).isEqualTo(TOKEN);
        assertThat(out.path("install_command").asText()).doesNotContain(TOKEN).contains("--master localhost --master-finger");
        assertThat(out.path("token_file").asText()).isEqualTo("/root/drover-enroll.token");
        assertThat(out.path("warnings").get(0).asText()).contains("localhost");
    }

    @Test
    void overPlainHttpTheCommandHasNoPinAndAWarningSaysSo() throws Exception {
        String url = start(false);

        Run run = create(url, "--server-url", url.replace("localhost", "10.0.0.5"), "--master", "10.0.0.5");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("warning: http://10.0.0.5:" + api.getAddress().getPort() + " is plain HTTP: the enrollment"
                + " token and the package cross the network in clear").doesNotContain("other hosts do not reach");
        assertThat(run.out().lines().toList().getLast()).doesNotContain("pinnedpubkey").contains("http://10.0.0.5:");
    }

    @Test
    void withoutAPackageOrAVerifiedCertificateNoTokenIsCreated() throws Exception {
        String url = start(true);
        Run unverified = drover("enroll", "create", "web", "--biz", "2", "--install-command", "--server", url, "--token", "t");
        assertThat(unverified.exit()).isNotZero();
        assertThat(unverified.err()).contains("cannot verify the certificate of " + url).contains("--cacert");

        packages = "[]";
        Run none = create(url);
        assertThat(none.exit()).isNotZero();
        assertThat(none.err()).contains("the server holds no agent package to install: upload one with drover agent-package upload");

        Run unsafe = create(url, "--master", "drover.example;reboot");
        assertThat(unsafe.exit()).isNotZero();
        assertThat(created).hasValue(0);
        assertThat(drover("enroll", "create", "web", "--biz", "2", "--server", url, "--token", "t", "--master", "m").err())
                .contains("--server-url, --master and --token-file are for --install-command");
    }
}

package io.drover.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.drover.core.testing.TestCa;
import io.drover.server.config.ConfigException;
import io.drover.server.config.Setting;
import io.drover.server.testing.EventFollower;
import io.drover.server.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The API and the console over HTTPS (tls-cert, tls-key): a test CA, certificates rotated under a live stream, HSTS. */
class HttpsTest {
    @TempDir
    static Path caDir;
    static TestCa ca;

    @TempDir
    Path dir;
    Path cert;
    Path key;
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    final Logger watcher = (Logger) LoggerFactory.getLogger(CertificateWatcher.class);

    @BeforeAll
    static void authority() {
        ca = TestCa.create(caDir, "drover-test-ca");
    }

    @BeforeEach
    void files() throws IOException {
        cert = Files.createDirectories(dir.resolve("tls")).resolve("server.pem");
        key = dir.resolve("tls").resolve("server.key");
        logs.start();
        root.addAppender(logs);
        watcher.setLevel(Level.INFO); // the log of a reload is what an operator checks after a rotation
    }

    @AfterEach
    void detach() {
        root.detachAppender(logs);
        watcher.setLevel(null);
    }

    TestServer https(TestCa.Leaf leaf, Map<Setting, String> more) {
        TestCa.install(leaf, cert, key);
        java.util.EnumMap<Setting, String> settings = new java.util.EnumMap<>(Setting.class);
        settings.put(Setting.TLS_CERT, cert.toString());
        settings.put(Setting.TLS_KEY, key.toString());
        settings.putAll(more);
        return TestServer.start(TestServer.newDataDir(), settings, ca.sslContext());
    }

    @Test
    void servesTheApiAndTheConsoleOverHttpsWithHsts() throws Exception {
        TestCa.Leaf leaf = ca.server("drover-api", TestCa.KeyKind.EC_SEC1, true);
        try (TestServer server = https(leaf, Map.of())) {
            assertThat(server.url()).startsWith("https://127.0.0.1:");

            TestServer.Response businesses = server.get("/api/v1/businesses", server.adminToken());
            assertThat(businesses.status()).isEqualTo(200);
            assertThat(businesses.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=31536000");
            for (String path : List.of("/healthz", "/api/v1/no-such-route", "/ui/")) {
                assertThat(server.get(path, null).headers().firstValue("Strict-Transport-Security")).as(path)
                        .hasValue("max-age=31536000");
            }
            assertThat(server.get("/api/v1/businesses", null).status()).isEqualTo(401);
            assertThat(serialOfANewHandshake(server)).isEqualTo(leaf.serial());
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCaIsRefusedAtTheHandshake() {
        try (TestServer server = https(ca.server("drover-api"), Map.of());
             HttpClient untrusting = HttpClient.newHttpClient()) {
            assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(URI.create(server.url() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        }
    }

    /** Plain HTTP to the TLS port is never served: the connection closes at once, and HTTPS goes on. */
    @Test
    void plainHttpToTheTlsPortIsNotServedAndTheServerGoesOn() throws Exception {
        try (TestServer server = https(ca.server("drover-api"), Map.of())) {
            String request = "GET /api/v1/businesses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + server.adminToken() + "\r\n\r\n";
            long started = System.nanoTime();
            String answer;
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", server.server().port()), 5_000);
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                answer = new String(readUntilClosed(in), StandardCharsets.ISO_8859_1);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            assertThat(answer).doesNotContain("bk_biz_name").doesNotContain(" 200 ");

            try (HttpClient plain = HttpClient.newHttpClient()) {
                assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.server().port() + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()))
                        .isInstanceOf(IOException.class);
            }
            assertThat(server.get("/healthz", null).status()).isEqualTo(200);
        }
    }

    /**
     * The certificate and key files are replaced while a client follows the event stream: the stream stays open on its
     * first handshake and goes on receiving events, and every new connection gets the new certificate.
     */
    @Test
    void aCertificateRotatedWhileAClientStreamsEventsReachesNewConnectionsAndTheStreamGoesOn() throws Exception {
        TestCa.Leaf first = ca.server("drover-first");
        TestCa.Leaf second = ca.server("drover-second", TestCa.KeyKind.RSA_PKCS1, true);
        try (TestServer server = https(first, Map.of());
             HttpClient client = HttpClient.newBuilder().sslContext(ca.sslContext()).build();
             EventFollower stream = new EventFollower(client, server.url(), "?tag=drover/inventory/*", server.adminToken())) {
            await().atMost(Duration.ofSeconds(20)).until(stream::connected);
            assertThat(serial(stream.session)).isEqualTo(first.serial());
            createBusiness(server, "before rotation");
            await().atMost(Duration.ofSeconds(20)).until(() -> streamed(stream, "before rotation"));

            TestCa.install(second, cert, key);

            await().atMost(Duration.ofSeconds(30)).until(() -> second.serial().equals(serialOfANewHandshake(server)));
            X509Certificate presented = certificateOfANewHandshake(server);
            assertThat(presented.getSubjectX500Principal().getName()).isEqualTo("CN=drover-second");
            createBusiness(server, "after rotation");
            await().atMost(Duration.ofSeconds(20)).until(() -> streamed(stream, "after rotation"));
            assertThat(serial(stream.session)).as("the stream keeps the connection it opened").isEqualTo(first.serial());
            assertThat(messages(Level.INFO)).anyMatch(m -> m.contains("CN=drover-second") && m.contains(cert.toString()));
        }
    }

    /** A rotation caught half-way, or a broken file: the server keeps its certificate, says why, and takes the next good pair. */
    @Test
    void aBrokenOrMismatchedRotationKeepsTheCertificateInUseAndLogsWhy() throws Exception {
        TestCa.Leaf first = ca.server("drover-first");
        TestCa.Leaf second = ca.server("drover-second");
        TestCa.Leaf third = ca.server("drover-third", TestCa.KeyKind.EC_PKCS8, false);
        try (TestServer server = https(first, Map.of())) {
            Files.writeString(key, "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n");
            await().atMost(Duration.ofSeconds(30)).until(() -> messages(Level.ERROR).stream()
                    .anyMatch(m -> m.contains("tls-key") && m.contains(key.toString()) && m.contains("cannot be read")));
            assertThat(serialOfANewHandshake(server)).isEqualTo(first.serial());

            TestCa.replace(second.cert(), cert); // the certificate is new, the key is still the broken one … then the first's
            TestCa.replace(first.key(), key);
            await().atMost(Duration.ofSeconds(30)).until(() -> messages(Level.ERROR).stream()
                    .anyMatch(m -> m.contains("does not belong to the certificate CN=drover-second")));
            assertThat(serialOfANewHandshake(server)).isEqualTo(first.serial());

            TestCa.install(third, cert, key);
            await().atMost(Duration.ofSeconds(30)).until(() -> third.serial().equals(serialOfANewHandshake(server)));
            assertThat(server.get("/healthz", null).status()).isEqualTo(200);
        }
    }

    @Test
    void aBadCertificateOrKeyAtStartIsOneErrorNamingTheSettingAndTheFile() throws IOException {
        TestCa.Leaf leaf = ca.server("drover-api");
        TestCa.Leaf other = ca.server("drover-other");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "hello");
        Path missing = dir.resolve("missing.pem");

        assertThatThrownBy(() -> config(garbage, leaf.key())).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("setting tls-cert (from override) " + garbage + " holds no certificate");
        assertThatThrownBy(() -> config(leaf.cert(), missing)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("setting tls-key (from override) " + missing + " cannot be read");
        assertThatThrownBy(() -> config(Path.of("/dev/zero"), leaf.key())).isInstanceOf(ConfigException.class)
                .hasMessage("setting tls-cert (from override) /dev/zero is larger than 1048576 bytes: not a PEM file");
        assertThatThrownBy(() -> config(leaf.cert(), leaf.cert())).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("setting tls-key (from override) " + leaf.cert() + " holds no private key");
        assertThatThrownBy(() -> config(leaf.cert(), other.key())).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("setting tls-key (from override) " + other.key()
                        + ": the private key does not belong to the certificate CN=drover-api");
        assertThatThrownBy(() -> TestServer.config(dir, Map.of(Setting.TLS_CERT, leaf.cert().toString())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tls-cert and tls-key go together");
        assertThatThrownBy(() -> config(leaf.cert(), leaf.key()).with(Map.of(Setting.TLS_KEY, "")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("tls-cert and tls-key go together");
        assertThat(config(leaf.cert(), leaf.key()).tls()).isNotNull();
        assertThat(TestServer.config(dir, Map.of()).tls()).isNull();
    }

    @Test
    void aNonLoopbackHostWithoutTlsIsWarnedAbout() {
        try (TestServer server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.HOST, "0.0.0.0"))) {
            assertThat(messages(Level.WARN)).anyMatch(m -> m.contains("0.0.0.0") && m.contains("in clear")
                    && m.contains("tls-cert") && m.contains("tls-key"));
        }
        logs.list.clear();
        try (TestServer server = TestServer.start()) {
            assertThat(messages(Level.WARN)).noneMatch(m -> m.contains("in clear"));
        }
        try (TestServer server = https(ca.server("drover-api"), Map.of(Setting.HOST, "0.0.0.0"))) {
            assertThat(messages(Level.WARN)).noneMatch(m -> m.contains("in clear"));
            assertThat(server.get("/healthz", null).status()).isEqualTo(200);
        }
    }

    private io.drover.server.config.ServerConfig config(Path certFile, Path keyFile) {
        return TestServer.config(dir, Map.of(Setting.TLS_CERT, certFile.toString(), Setting.TLS_KEY, keyFile.toString()));
    }

    private List<String> messages(Level level) {
        synchronized (logs) { // the appender adds under its own lock
            return logs.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    private static void createBusiness(TestServer server, String name) {
        TestServer.Response created = server.post("/api/v1/businesses", server.adminToken(), Map.of("bk_biz_name", name));
        assertThat(created.status()).as(created.text()).isEqualTo(201);
    }

    private static boolean streamed(EventFollower stream, String businessName) {
        return stream.events.stream().anyMatch(e -> e.toString().contains(businessName));
    }

    private static BigInteger serial(SSLSession session) throws Exception {
        return ((X509Certificate) session.getPeerCertificates()[0]).getSerialNumber();
    }

    private static BigInteger serialOfANewHandshake(TestServer server) throws Exception {
        return certificateOfANewHandshake(server).getSerialNumber();
    }

    /** A new client, so a new connection and a full handshake. */
    private static X509Certificate certificateOfANewHandshake(TestServer server) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().sslContext(ca.sslContext()).build()) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(server.url() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            return (X509Certificate) answer.sslSession().orElseThrow().getPeerCertificates()[0];
        }
    }

    private static byte[] readUntilClosed(InputStream in) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                bytes.write(buffer, 0, n);
            }
        } catch (java.net.SocketException reset) {
            // a reset is a close too
        } catch (IOException e) {
            throw new AssertionError("the server neither answered nor closed the connection: " + e, e);
        }
        return bytes.toByteArray();
    }
}

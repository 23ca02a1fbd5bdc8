package io.drover.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.server.events.EventBus;
import io.drover.server.testing.TestNats;
import io.nats.client.NKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of credential a server can give the cluster's NATS, against a nats-server that requires it: the right one
 * joins, a wrong or missing one is refused by NATS, and no secret appears in what the server says. TLS: the NATS
 * server's certificate must chain to cluster-tls-ca and name the host of the URL.
 */
class NatsCredentialsTest {
    static final byte[] KEY = new byte[32];

    @TempDir
    Path dir;

    static NatsCredentials credentials(String user, Path password, Path token, Path nkey, Path ca, Path cert, Path key) {
        return new NatsCredentials(user, password, token, nkey, ca, cert, key, false, false);
    }

    static NatsCluster join(String url, NatsCredentials credentials) {
        return NatsCluster.join(url, credentials, KEY, Clock.systemUTC(), (load, minions) -> { }, new EventBus());
    }

    Path file(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void aTokenFromItsFile() throws Exception {
        try (TestNats nats = TestNats.start(dir, "authorization { token: \"t0ken-of-the-cluster\" }\n")) {
            try (NatsCluster joined = join(nats.url(), credentials(null, null, file("token", "t0ken-of-the-cluster\n"), null, null, null, null))) {
                assertThat(joined.connected()).isTrue();
                assertThat(joined.credentials().kinds()).isEqualTo("token");
            }
            assertThatThrownBy(() -> join(nats.url(), credentials(null, null, file("wrong", "n0t-the-token\n"), null, null, null, null)))
                    .hasMessageContaining("cannot reach the cluster's NATS").hasMessageNotContaining("n0t-the-token");
            assertThatThrownBy(() -> join(nats.url(), credentials(null, null, file("two", "a\nb\n"), null, null, null, null)))
                    .hasMessageContaining("must hold one line").hasMessageNotContaining("a\nb");
        }
    }

    @Test
    void anNKeySeedFromItsFile() throws Exception {
        NKey user = NKey.createUser(new SecureRandom());
        NKey other = NKey.createUser(new SecureRandom());
        try (TestNats nats = TestNats.start(dir, "authorization { users = [ { nkey: " + new String(user.getPublicKey()) + " } ] }\n")) {
            try (NatsCluster joined = join(nats.url(), credentials(null, null, null, file("seed", new String(user.getSeed()) + "\n"),
                    null, null, null))) {
                assertThat(joined.connected()).isTrue();
                assertThat(joined.credentials().kinds()).isEqualTo("nkey");
            }
            assertThatThrownBy(() -> join(nats.url(), credentials(null, null, null, file("other", new String(other.getSeed())),
                    null, null, null))).hasMessageContaining("cannot reach the cluster's NATS");
            assertThatThrownBy(() -> join(nats.url(), credentials(null, null, null, file("garbage", "SUnot-a-seed"),
                    null, null, null))).hasMessageContaining("does not hold an NKey seed").hasMessageNotContaining("SUnot");
        }
    }

    @Test
    void aUserWithItsPasswordAndNoneAtAll() throws Exception {
        try (TestNats nats = TestNats.withPassword(dir)) {
            try (NatsCluster joined = join(nats.url(), nats.credentials())) {
                assertThat(joined.connected()).isTrue();
            }
            assertThatThrownBy(() -> join(nats.url(), new NatsCredentials(null, null, null, null, null, null, null, false, true)))
                    .hasMessageContaining("cannot reach the cluster's NATS");
            assertThatThrownBy(() -> join(nats.urlWithPassword().replace(TestNats.USER + ":", TestNats.USER + ":x"),
                    new NatsCredentials(null, null, null, null, null, null, null, true, false)))
                    .hasMessageContaining("cannot reach the cluster's NATS").hasMessageContaining("nats://…@127.0.0.1");
            try (NatsCluster joined = join(nats.urlWithPassword(), new NatsCredentials(null, null, null, null, null, null, null, true, false))) {
                assertThat(joined.connected()).as("a user and password in the URL").isTrue();
            }
        }
    }

    @Test
    void tlsChecksTheServersCertificateAndNameAndPresentsTheClientCertificate() throws Exception {
        Path ca = dir.resolve("ca.pem");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=drover test CA");
        Path otherCa = dir.resolve("other-ca.pem");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "2",
                "-subj", "/CN=another CA");
        signed("server", "localhost", "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n");
        signed("client", "drover-server", "extendedKeyUsage=clientAuth\n");
        Path cert = dir.resolve("client.pem");
        Path key = dir.resolve("client.key");
        try (TestNats nats = TestNats.start(dir, "tls {\n  cert_file: \"" + dir.resolve("server.pem") + "\"\n  key_file: \""
                + dir.resolve("server.key") + "\"\n  ca_file: \"" + ca + "\"\n  verify: true\n  timeout: 5\n}\n")) {
            String port = nats.url().substring(nats.url().lastIndexOf(':') + 1);
            try (NatsCluster joined = join("tls://localhost:" + port, credentials(null, null, null, null, ca, cert, key))) {
                assertThat(joined.connected()).isTrue();
                assertThat(joined.credentials().kinds()).isEqualTo("certificate");
            }
            assertThatThrownBy(() -> join("tls://127.0.0.1:" + port, credentials(null, null, null, null, ca, cert, key)))
                    .as("the certificate names localhost only").hasMessageContaining("cannot reach the cluster's NATS");
            assertThatThrownBy(() -> join("tls://localhost:" + port, credentials(null, null, null, null, otherCa, cert, key)))
                    .as("signed by a CA not trusted").hasMessageContaining("cannot reach the cluster's NATS");
            assertThatThrownBy(() -> join("tls://localhost:" + port, credentials(null, null, null, null, null, cert, key)))
                    .as("the system's CAs do not know the test CA").hasMessageContaining("cannot reach the cluster's NATS");
            assertThatThrownBy(() -> join("tls://localhost:" + port, new NatsCredentials(null, null, null, null, ca, null, null, false, true)))
                    .as("NATS requires a client certificate").hasMessageContaining("cannot reach the cluster's NATS");
            Path rsaKey = dir.resolve("client-rsa.key");
            openssl("rsa", "-in", "client.key", "-traditional", "-out", "client-rsa.key");
            assertThatThrownBy(() -> join("tls://localhost:" + port, credentials(null, null, null, null, ca, cert, rsaKey)))
                    .hasMessageContaining("no PKCS#8 key").hasMessageContaining("openssl pkcs8");
        }
        // the certificate as the user, as docs/operations.md configures it
        try (TestNats nats = TestNats.start(dir, "tls {\n  cert_file: \"" + dir.resolve("server.pem") + "\"\n  key_file: \""
                + dir.resolve("server.key") + "\"\n  ca_file: \"" + ca + "\"\n  verify_and_map: true\n  timeout: 5\n}\n"
                + "authorization { users = [ { user: \"CN=drover-server\" } ] }\n")) {
            String port = nats.url().substring(nats.url().lastIndexOf(':') + 1);
            try (NatsCluster joined = join("tls://localhost:" + port, credentials(null, null, null, null, ca, cert, key))) {
                assertThat(joined.connected()).isTrue();
            }
            signed("stranger", "someone-else", "extendedKeyUsage=clientAuth\n");
            assertThatThrownBy(() -> join("tls://localhost:" + port, credentials(null, null, null, null, ca,
                    dir.resolve("stranger.pem"), dir.resolve("stranger.key"))))
                    .as("a certificate of the same CA for another name").hasMessageContaining("cannot reach the cluster's NATS");
        }
    }

    /** A certificate for {@code name} signed by the test CA, with its key, as {@code <base>.pem} and {@code <base>.key}. */
    void signed(String base, String name, String extensions) throws Exception {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".csr", "-subj", "/CN=" + name);
        Files.writeString(dir.resolve(base + ".ext"), extensions);
        openssl("x509", "-req", "-in", base + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", base + ".pem",
                "-days", "2", "-extfile", base + ".ext");
    }

    void openssl(String... args) throws Exception {
        boolean present = Files.isExecutable(Path.of("/usr/bin/openssl"));
        if (!present && System.getenv("CI") != null) {
            throw new IllegalStateException("CI is set but openssl is not installed");
        }
        Assumptions.assumeTrue(present, "openssl is not installed");
        List<String> command = new java.util.ArrayList<>(List.of("/usr/bin/openssl"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + Files.readString(dir.resolve("openssl.log"))).isZero();
    }
}

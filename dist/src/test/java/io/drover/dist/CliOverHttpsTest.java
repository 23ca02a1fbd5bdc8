package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.testing.TestCa;
import io.drover.server.config.Setting;
import io.drover.server.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The drover command against a server on HTTPS whose certificate a CA of the operator's own signed (--cacert). */
class CliOverHttpsTest {
    @TempDir
    static Path dir;
    static TestCa ca;
    static TestServer server;

    @BeforeAll
    static void start() {
        ca = TestCa.create(dir, "operators-ca");
        TestCa.Leaf leaf = ca.server("drover.example", TestCa.KeyKind.RSA_PKCS8, true);
        server = TestServer.start(TestServer.newDataDir(), Map.of(Setting.TLS_CERT, leaf.cert().toString(),
                Setting.TLS_KEY, leaf.key().toString()), ca.sslContext());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    CliEndToEndTest.Run drover(String url, String... args) {
        String[] full = new String[args.length + 4];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "--server";
        full[args.length + 1] = url;
        full[args.length + 2] = "--token";
        full[args.length + 3] = server.adminToken();
        return CliEndToEndTest.raw(full);
    }

    @Test
    void withTheCaOfTheServersCertificateTheCliWorks() {
        assertThat(server.url()).startsWith("https://");
        assertThat(server.post("/api/v1/businesses", server.adminToken(), Map.of("bk_biz_name", "over tls")).status())
                .isEqualTo(201);
        CliEndToEndTest.Run byAddress = drover(server.url(), "biz", "list", "--cacert", ca.cert().toString());
        assertThat(byAddress.exit()).as(byAddress.err()).isZero();
        assertThat(byAddress.out()).contains("over tls");
        CliEndToEndTest.Run listed = drover(server.url().replace("127.0.0.1", "localhost"), "biz", "list", "--cacert",
                ca.cert().toString());
        assertThat(listed.exit()).as(listed.err()).isZero();
        assertThat(listed.out()).contains("over tls");
    }

    @Test
    void withoutItTheCliRefusesTheServerAndSaysWhatToDo() {
        CliEndToEndTest.Run run = drover(server.url(), "biz", "list");

        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("cannot verify the certificate of " + server.url())
                .contains("--cacert FILE").contains("DROVER_CACERT").doesNotContain("Exception");
    }

    @Test
    void aCaThatDidNotSignTheCertificateIsRefusedLikeNone() {
        TestCa stranger = TestCa.create(dir, "strangers-ca");

        CliEndToEndTest.Run run = drover(server.url(), "biz", "list", "--cacert", stranger.cert().toString());

        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("cannot verify the certificate of " + server.url())
                .contains(stranger.cert().toString());
    }

    @Test
    void aCaFileThatHoldsNoCertificateIsNamed() throws Exception {
        Path key = Files.writeString(dir.resolve("not-a-ca.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        Path missing = dir.resolve("missing.pem");

        CliEndToEndTest.Run notCa = drover(server.url(), "biz", "list", "--cacert", key.toString());
        CliEndToEndTest.Run absent = drover(server.url(), "biz", "list", "--cacert", missing.toString());

        assertThat(notCa.exit()).isNotZero();
        assertThat(notCa.err()).contains(key + " (--cacert or DROVER_CACERT) holds no certificate");
        assertThat(absent.exit()).isNotZero();
        assertThat(absent.err()).contains(missing + " (--cacert or DROVER_CACERT) cannot be read");
    }

    @Test
    void plainHttpToTheHttpsPortFailsWithAHint() {
        String plain = server.url().replace("https://", "http://");

        CliEndToEndTest.Run run = drover(plain, "biz", "list", "--cacert", ca.cert().toString());

        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("request to " + plain + " failed").contains("use an https:// URL");
    }
}

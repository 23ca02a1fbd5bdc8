package io.drover.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.testing.TestCa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** PEM files as openssl writes them by default, and everything else an operator might point tls-cert/tls-key at. */
class PemTest {
    @TempDir
    static Path dir;
    static TestCa ca;

    @BeforeAll
    static void authority() {
        ca = TestCa.create(dir, "pem-test");
    }

    @ParameterizedTest
    @EnumSource(TestCa.KeyKind.class)
    void readsEveryKeyFormatOpensslWritesByDefaultAndMatchesItToItsCertificate(TestCa.KeyKind kind) throws IOException {
        TestCa.Leaf leaf = ca.server("drover-" + kind.name().toLowerCase(), kind, false);
        List<X509Certificate> chain = Pem.certificates(Files.readString(leaf.cert()));
        PrivateKey key = Pem.privateKey(Files.readString(leaf.key()));

        assertThat(chain).hasSize(1);
        assertThat(chain.get(0).getSerialNumber()).isEqualTo(leaf.serial());
        assertThat(key.getAlgorithm()).isEqualTo(kind.name().startsWith("EC") ? "EC" : "RSA");
        Pem.checkPair(key, chain.get(0));
    }

    @Test
    void readsAChainLeafFirstAndToleratesWindowsLineEndingsAndTextAroundBlocks() throws IOException {
        TestCa.Leaf leaf = ca.server("chained", TestCa.KeyKind.RSA_PKCS8, true);
        String text = "subject=CN = chained\r\n" + Files.readString(leaf.cert()).replace("\n", "\r\n") + "trailing words\n";

        List<X509Certificate> chain = Pem.certificates(text);

        assertThat(chain).hasSize(2);
        assertThat(chain.get(0).getSerialNumber()).isEqualTo(leaf.serial());
        assertThat(chain.get(1).getSubjectX500Principal().getName()).isEqualTo("CN=pem-test");
    }

    @Test
    void aCombinedFileGivesItsCertificatesAndItsKey() throws IOException {
        TestCa.Leaf leaf = ca.server("combined");
        String combined = Files.readString(leaf.key()) + Files.readString(leaf.cert());

        Pem.checkPair(Pem.privateKey(combined), Pem.certificates(combined).get(0));
    }

    @Test
    void aKeyOfAnotherCertificateIsRefused() throws IOException {
        TestCa.Leaf one = ca.server("one");
        TestCa.Leaf other = ca.server("other", TestCa.KeyKind.EC_SEC1, false);
        X509Certificate cert = Pem.certificates(Files.readString(one.cert())).get(0);

        for (Path key : List.of(other.key(), ca.server("third").key())) {
            PrivateKey wrong = Pem.privateKey(Files.readString(key));
            assertThatThrownBy(() -> Pem.checkPair(wrong, cert)).isInstanceOf(PemException.class)
                    .hasMessageContaining("does not belong to the certificate").hasMessageContaining("CN=one");
        }
    }

    @Test
    void namesWhatAFileHoldsWhenItIsNotWhatWasAskedFor() throws IOException {
        TestCa.Leaf leaf = ca.server("swapped");
        String key = Files.readString(leaf.key());
        String cert = Files.readString(leaf.cert());

        assertThatThrownBy(() -> Pem.certificates(key)).isInstanceOf(PemException.class)
                .hasMessage("holds no certificate (-----BEGIN CERTIFICATE-----); it holds: PRIVATE KEY");
        assertThatThrownBy(() -> Pem.privateKey(cert)).isInstanceOf(PemException.class)
                .hasMessageStartingWith("holds no private key").hasMessageEndingWith("it holds: CERTIFICATE");
        assertThatThrownBy(() -> Pem.certificates("")).isInstanceOf(PemException.class)
                .hasMessage("holds no certificate (-----BEGIN CERTIFICATE-----); it holds no PEM block at all");
        assertThatThrownBy(() -> Pem.privateKey("\u0000\uFFFF not pem")).isInstanceOf(PemException.class)
                .hasMessageContaining("no PEM block at all");
    }

    @Test
    void anEncryptedKeyIsRefusedWithHowToDecryptIt() {
        String pkcs8 = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBvTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQww\n-----END ENCRYPTED PRIVATE KEY-----\n";
        String traditional = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,0011\n\n"
                + "MIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n";

        for (String text : List.of(pkcs8, traditional)) {
            assertThatThrownBy(() -> Pem.privateKey(text)).isInstanceOf(PemException.class)
                    .hasMessageContaining("encrypted").hasMessageContaining("openssl pkey");
        }
    }

    @Test
    void twoKeysInOneFileAreRefused() throws IOException {
        String two = Files.readString(ca.server("a").key()) + Files.readString(ca.server("b").key());

        assertThatThrownBy(() -> Pem.privateKey(two)).isInstanceOf(PemException.class)
                .hasMessageContaining("holds 2 private keys");
    }

    @Test
    void badBase64AndUnfinishedBlocksAreRefused() {
        assertThatThrownBy(() -> Pem.certificates("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"))
                .isInstanceOf(PemException.class).hasMessageContaining("certificate 1").hasMessageContaining("base64");
        assertThatThrownBy(() -> Pem.certificates("-----BEGIN CERTIFICATE-----\nMIIB\n"))
                .isInstanceOf(PemException.class).hasMessageContaining("no -----END CERTIFICATE-----");
    }

    /** Whatever bytes sit inside a block of any kind, the answer is a PemException, never another failure. */
    @Test
    void randomBytesInsideEveryKindOfBlockGiveAPemExceptionOnly() throws IOException {
        Random random = new Random(29);
        byte[] realKey = Base64.getMimeDecoder().decode(body(Files.readString(ca.server("fuzz", TestCa.KeyKind.EC_SEC1, false).key()), "EC PRIVATE KEY"));
        for (String label : List.of("CERTIFICATE", "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")) {
            for (int i = 0; i < 300; i++) {
                byte[] bytes = i % 2 == 0 ? new byte[random.nextInt(600)] : realKey.clone();
                if (i % 2 == 0) {
                    random.nextBytes(bytes);
                } else {
                    bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
                    bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                }
                String text = "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder().encodeToString(bytes)
                        + "\n-----END " + label + "-----\n";
                try {
                    if (label.equals("CERTIFICATE")) {
                        Pem.certificates(text);
                    } else {
                        Pem.privateKey(text);
                    }
                } catch (PemException expected) {
                    assertThat(expected.getMessage()).isNotBlank();
                }
            }
        }
    }

    private static String body(String pem, String label) {
        int start = pem.indexOf("-----BEGIN " + label + "-----") + ("-----BEGIN " + label + "-----").length();
        return pem.substring(start, pem.indexOf("-----END " + label + "-----"));
    }
}

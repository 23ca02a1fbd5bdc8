package io.drover.transport.crypto;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * RSA keys in the PEM forms Salt writes: private keys as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}), public keys as
 * SubjectPublicKeyInfo ({@code BEGIN PUBLIC KEY}); PKCS#1 public and PKCS#8 private keys are read too.
 */
public final class RsaKeys {
    public static final int KEY_SIZE = 2048;
    // AlgorithmIdentifier { rsaEncryption, NULL }
    private static final byte[] RSA_ALGORITHM = HexFormat.of().parseHex("300d06092a864886f70d0101010500");

    private RsaKeys() {
    }

    public static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(KEY_SIZE);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String publicPem(RSAPublicKey key) {
        return pem("PUBLIC KEY", key.getEncoded());
    }

    public static String privatePem(RSAPrivateCrtKey key) {
        return pem("RSA PRIVATE KEY", pkcs1FromPkcs8(key.getEncoded()));
    }

    public static RSAPublicKey parsePublic(String pem) {
        try {
            KeyFactory rsa = KeyFactory.getInstance("RSA");
            if (pem.contains("BEGIN RSA PUBLIC KEY")) {
                byte[] der = body(pem, "RSA PUBLIC KEY");
                byte[] bitString = concat(new byte[] {0}, der);
                byte[] spki = sequence(concat(RSA_ALGORITHM, tlv(0x03, bitString)));
                return (RSAPublicKey) rsa.generatePublic(new X509EncodedKeySpec(spki));
            }
            return (RSAPublicKey) rsa.generatePublic(new X509EncodedKeySpec(body(pem, "PUBLIC KEY")));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an RSA public key in PEM form: " + e.getMessage());
        }
    }

    public static RSAPrivateCrtKey parsePrivate(String pem) {
        try {
            byte[] pkcs8 = pem.contains("BEGIN RSA PRIVATE KEY")
                    ? sequence(concat(tlv(0x02, new byte[] {0}), RSA_ALGORITHM, tlv(0x04, body(pem, "RSA PRIVATE KEY"))))
                    : body(pem, "PRIVATE KEY");
            return (RSAPrivateCrtKey) KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an RSA private key in PEM form: " + e.getMessage());
        }
    }

    public static RSAPublicKey publicOf(RSAPrivateCrtKey key) {
        try {
            return (RSAPublicKey) KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(key.getModulus(), key.getPublicExponent()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The sha256 fingerprint salt-key and {@code key.finger} print: colon-separated hex of sha256 over the PEM's
     * base64 lines (armour and blank lines dropped, each line ending in a newline), so an operator can compare it with
     * what the minion shows.
     */
    public static String fingerprint(String publicPem) {
        List<String> lines = publicPem.replace("\r\n", "\n").lines().filter(l -> !l.isBlank()).toList();
        StringBuilder body = new StringBuilder();
        for (String line : lines.subList(Math.min(1, lines.size()), Math.max(1, lines.size() - 1))) {
            body.append(line).append('\n');
        }
        String hex = io.drover.core.Hashing.sha256(body.toString().getBytes(StandardCharsets.US_ASCII));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < hex.length(); i += 2) {
            sb.append(sb.isEmpty() ? "" : ":").append(hex, i, i + 2);
        }
        return sb.toString();
    }

    private static String pem(String type, byte[] der) {
        String base64 = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
    }

    private static byte[] body(String pem, String type) {
        String begin = "-----BEGIN " + type + "-----";
        String end = "-----END " + type + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("no " + type + " block");
        }
        return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to).strip());
    }

    /** The PKCS#1 RSAPrivateKey inside a PKCS#8 PrivateKeyInfo: the content of its OCTET STRING. */
    static byte[] pkcs1FromPkcs8(byte[] pkcs8) {
        int[] at = {0};
        expect(pkcs8, at, 0x30);
        length(pkcs8, at);
        skip(pkcs8, at); // version
        skip(pkcs8, at); // algorithm
        expect(pkcs8, at, 0x04);
        int len = length(pkcs8, at);
        return Arrays.copyOfRange(pkcs8, at[0], at[0] + len);
    }

    private static void expect(byte[] der, int[] at, int tag) {
        if ((der[at[0]++] & 0xff) != tag) {
            throw new IllegalArgumentException("unexpected DER tag");
        }
    }

    private static void skip(byte[] der, int[] at) {
        at[0]++;
        int len = length(der, at);
        at[0] += len;
    }

    private static int length(byte[] der, int[] at) {
        int first = der[at[0]++] & 0xff;
        if (first < 0x80) {
            return first;
        }
        int n = first & 0x7f;
        int len = 0;
        for (int i = 0; i < n; i++) {
            len = (len << 8) | (der[at[0]++] & 0xff);
        }
        return len;
    }

    private static byte[] tlv(int tag, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int len = value.length;
        if (len < 0x80) {
            out.write(len);
        } else {
            byte[] bytes = BigInteger.valueOf(len).toByteArray();
            int skip = bytes[0] == 0 ? 1 : 0;
            out.write(0x80 | (bytes.length - skip));
            out.write(bytes, skip, bytes.length - skip);
        }
        out.writeBytes(value);
        return out.toByteArray();
    }

    private static byte[] sequence(byte[] content) {
        return tlv(0x30, content);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}

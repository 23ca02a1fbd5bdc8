package io.drover.core.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Certificates and private keys from PEM text, in the forms openssl writes by default: certificate chains (leaf
 * first), PKCS#8 keys ({@code PRIVATE KEY}), PKCS#1 RSA keys ({@code RSA PRIVATE KEY}) and SEC1 EC keys
 * ({@code EC PRIVATE KEY}, possibly after an {@code EC PARAMETERS} block). Text around the blocks is ignored. Every
 * refusal is a {@link PemException} whose message says what the text holds instead.
 */
public final class Pem {
    private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7,
            0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
    private static final byte[] EC_PUBLIC_KEY_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");
    private static final String DECRYPT = "the server cannot ask for a passphrase: write it decrypted with "
            + "'openssl pkey -in KEY -out KEY.plain' and let only the server's user read that file (chmod 600)";

    private Pem() {
    }

    /** One {@code -----BEGIN label-----} block: its headers (RFC 1421, as in old encrypted keys) and its base64. */
    private record Block(String label, List<String> headers, String base64) {
        byte[] der(String what) {
            try {
                return Base64.getDecoder().decode(base64);
            } catch (IllegalArgumentException e) {
                throw new PemException(what + " is not valid base64: " + e.getMessage());
            }
        }
    }

    /** Every certificate of the text, in order: a server's own certificate first, then the ones that issued it. */
    public static List<X509Certificate> certificates(String text) {
        List<Block> blocks = blocks(text);
        List<X509Certificate> certificates = new ArrayList<>();
        for (Block block : blocks) {
            if (!block.label().equals("CERTIFICATE")) {
                continue;
            }
            String what = "certificate " + (certificates.size() + 1);
            byte[] der = block.der(what);
            try {
                certificates.add((X509Certificate) CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(der)));
            } catch (GeneralSecurityException | RuntimeException e) {
                throw new PemException(what + " cannot be read: " + e.getMessage());
            }
        }
        if (certificates.isEmpty()) {
            throw new PemException("holds no certificate (-----BEGIN CERTIFICATE-----); " + contents(blocks));
        }
        return certificates;
    }

    /** The one private key of the text (certificates beside it are ignored). */
    public static PrivateKey privateKey(String text) {
        List<Block> blocks = blocks(text);
        List<Block> keys = blocks.stream().filter(b -> b.label().endsWith("PRIVATE KEY")).toList();
        if (keys.isEmpty()) {
            throw new PemException("holds no private key (-----BEGIN PRIVATE KEY-----, RSA PRIVATE KEY or EC PRIVATE KEY); "
                    + contents(blocks));
        }
        if (keys.size() > 1) {
            throw new PemException("holds " + keys.size() + " private keys; give it the server's key only");
        }
        Block key = keys.get(0);
        if (key.label().equals("ENCRYPTED PRIVATE KEY") || key.headers().stream().anyMatch(h -> h.contains("ENCRYPTED"))) {
            throw new PemException("holds an encrypted private key; " + DECRYPT);
        }
        byte[] pkcs8 = switch (key.label()) {
            case "PRIVATE KEY" -> key.der("the private key");
            case "RSA PRIVATE KEY" -> sequence(VERSION_0, RSA_ALGORITHM, octetString(key.der("the RSA private key")));
            case "EC PRIVATE KEY" -> {
                byte[] sec1 = key.der("the EC private key");
                yield sequence(VERSION_0, sequence(EC_PUBLIC_KEY_OID, curveOf(sec1)), octetString(sec1));
            }
            default -> throw new PemException("holds a " + key.label() + ", which is not a key the server can use; "
                    + "write it as PKCS#8 with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8'");
        };
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (GeneralSecurityException | RuntimeException notThisAlgorithm) {
                // the next algorithm may read it
            }
        }
        throw new PemException("the private key cannot be read (not an RSA, EC or EdDSA key in valid PKCS#8, PKCS#1 or SEC1)");
    }

    /** Refuses a key that does not belong to the certificate: it signs a challenge the certificate's public key must verify. */
    public static void checkPair(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> key.getAlgorithm();
            default -> throw new PemException("holds a " + key.getAlgorithm() + " key; use an RSA, EC or EdDSA key");
        };
        byte[] challenge = "drover: does this key belong to this certificate?".getBytes(StandardCharsets.UTF_8);
        boolean belongs;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            belongs = verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            belongs = false;
        }
        if (!belongs) {
            throw new PemException("the private key does not belong to the certificate "
                    + certificate.getSubjectX500Principal().getName() + " (serial " + certificate.getSerialNumber().toString(16)
                    + "); give the key the certificate was made for");
        }
    }

    private static List<Block> blocks(String text) {
        List<Block> blocks = new ArrayList<>();
        int at = 0;
        while (true) {
            int begin = text.indexOf("-----BEGIN ", at);
            if (begin < 0) {
                return blocks;
            }
            int labelEnd = text.indexOf("-----", begin + 11);
            String label = labelEnd < 0 ? "" : text.substring(begin + 11, labelEnd);
            if (!label.matches("[A-Z0-9 ]{1,64}")) {
                at = begin + 11;
                continue;
            }
            String end = "-----END " + label + "-----";
            int endAt = text.indexOf(end, labelEnd + 5);
            if (endAt < 0) {
                throw new PemException("the block -----BEGIN " + label + "----- has no " + end);
            }
            List<String> headers = new ArrayList<>();
            StringBuilder base64 = new StringBuilder();
            for (String line : text.substring(labelEnd + 5, endAt).split("\r?\n|\r")) {
                if (line.contains(":")) {
                    headers.add(line.strip());
                } else {
                    base64.append(line.strip());
                }
            }
            blocks.add(new Block(label, headers, base64.toString()));
            at = endAt + end.length();
        }
    }

    private static String contents(List<Block> blocks) {
        if (blocks.isEmpty()) {
            return "it holds no PEM block at all";
        }
        Set<String> labels = new LinkedHashSet<>();
        blocks.forEach(b -> labels.add(b.label()));
        return "it holds: " + String.join(", ", labels);
    }

    /** The named curve of a SEC1 ECPrivateKey: the OID in its optional [0] parameters, as a whole DER element. */
    private static byte[] curveOf(byte[] sec1) {
        Der der = new Der(sec1, "the EC private key");
        Der key = der.enter(0x30);
        key.skip(0x02); // version
        key.skip(0x04); // the private value
        if (!key.next(0xa0)) {
            throw new PemException("the EC private key names no curve; write it with 'openssl ec -param_enc named_curve'");
        }
        Der parameters = key.enter(0xa0);
        return parameters.element(0x06);
    }

    private static byte[] sequence(byte[]... parts) {
        return element(0x30, parts);
    }

    private static byte[] octetString(byte[] content) {
        return element(0x04, content);
    }

    private static byte[] element(int tag, byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int length = content.size();
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }

    /** Just enough of a DER reader to walk a SEC1 key: elements read in order, every length checked against the bytes. */
    private static final class Der {
        private final byte[] bytes;
        private final String what;
        private int at;
        private final int end;

        Der(byte[] bytes, String what) {
            this(bytes, what, 0, bytes.length);
        }

        private Der(byte[] bytes, String what, int at, int end) {
            this.bytes = bytes;
            this.what = what;
            this.at = at;
            this.end = end;
        }

        boolean next(int tag) {
            return at < end && (bytes[at] & 0xff) == tag;
        }

        /** The content of the next element, which must have the tag. */
        Der enter(int tag) {
            int[] span = span(tag);
            at = span[1];
            return new Der(bytes, what, span[0], span[1]);
        }

        void skip(int tag) {
            at = span(tag)[1];
        }

        /** The next element, tag and length included. */
        byte[] element(int tag) {
            int start = at;
            at = span(tag)[1];
            return java.util.Arrays.copyOfRange(bytes, start, at);
        }

        /** Where the next element's content starts and ends. */
        private int[] span(int tag) {
            if (!next(tag)) {
                throw invalid();
            }
            int pos = at + 1;
            if (pos >= end) {
                throw invalid();
            }
            int first = bytes[pos++] & 0xff;
            long length = first;
            if (first >= 0x80) {
                int count = first & 0x7f;
                if (count == 0 || count > 4 || pos + count > end) {
                    throw invalid();
                }
                length = 0;
                for (int i = 0; i < count; i++) {
                    length = (length << 8) | (bytes[pos++] & 0xff);
                }
            }
            if (length > end - pos) {
                throw invalid();
            }
            return new int[] {pos, pos + (int) length};
        }

        private PemException invalid() {
            return new PemException(what + " is not valid DER (SEC1)");
        }
    }
}

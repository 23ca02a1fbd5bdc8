package io.drover.server.http;

import io.drover.core.tls.Pem;
import io.drover.core.tls.PemException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/** The API's certificate chain (leaf first) and its private key, read from the PEM files of tls-cert and tls-key. */
public record ServerCertificate(PrivateKey key, List<X509Certificate> chain) {
    /** Larger than any certificate chain or key; a bigger file (or a device such as /dev/zero) is refused unread. */
    static final int MAX_FILE_BYTES = 1 << 20;

    /** The two files, as the settings name them. */
    public record PemFiles(Path cert, Path key) {
    }

    /** Which file a refusal is about, by the name of its setting. */
    public enum Part {
        CERT("tls-cert"), KEY("tls-key");

        private final String setting;

        Part(String setting) {
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }
    }

    /** A file that cannot serve: its message names the file and says why. */
    public static final class Unusable extends RuntimeException {
        private final Part part;

        Unusable(Part part, String message) {
            super(message);
            this.part = part;
        }

        public Part part() {
            return part;
        }
    }

    /** What both files hold now, as text; what {@link #parse} reads. */
    record Contents(String cert, String key) {
    }

    /** Reads both files and checks that the key belongs to the certificate. */
    public static ServerCertificate read(PemFiles files) {
        return parse(files, contents(files));
    }

    static Contents contents(PemFiles files) {
        return new Contents(text(files.cert(), Part.CERT), text(files.key(), Part.KEY));
    }

    static ServerCertificate parse(PemFiles files, Contents contents) {
        List<X509Certificate> chain;
        try {
            chain = Pem.certificates(contents.cert());
        } catch (PemException e) {
            throw unusable(Part.CERT, files.cert(), e);
        }
        try {
            PrivateKey key = Pem.privateKey(contents.key());
            Pem.checkPair(key, chain.get(0));
            return new ServerCertificate(key, List.copyOf(chain));
        } catch (PemException e) {
            throw unusable(Part.KEY, files.key(), e);
        }
    }

    /** Subject, serial and end of validity of the server's own certificate: what a log line needs to tell them apart. */
    public String describe() {
        X509Certificate leaf = chain.get(0);
        return leaf.getSubjectX500Principal().getName() + " (serial " + leaf.getSerialNumber().toString(16) + ", valid until "
                + leaf.getNotAfter().toInstant() + ")";
    }

    private static String text(Path file, Part part) {
        try (InputStream in = java.nio.file.Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
            if (bytes.length > MAX_FILE_BYTES) {
                throw new Unusable(part, file + " is larger than " + MAX_FILE_BYTES + " bytes: not a PEM file");
            }
            return new String(bytes, StandardCharsets.ISO_8859_1); // PEM is ASCII; any byte reads, none fails
        } catch (IOException e) {
            throw new Unusable(part, file + " cannot be read: " + e);
        }
    }

    private static Unusable unusable(Part part, Path file, PemException e) {
        String why = e.getMessage();
        return new Unusable(part, file + (why.startsWith("holds ") ? " " : ": ") + why);
    }
}

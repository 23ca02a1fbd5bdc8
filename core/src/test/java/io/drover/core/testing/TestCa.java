package io.drover.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority made for one test with the machine's {@code openssl}, in a temporary directory: no private
 * key is checked in. Certificates for a server name it signs carry {@code localhost} and {@code 127.0.0.1}, so that
 * clients verifying host names accept them on loopback.
 */
public final class TestCa {
    private static final AtomicLong SERIALS = new AtomicLong(0x1000);

    private final Path dir;
    private final String name;

    private TestCa(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    /** The kinds of key openssl writes by default for each command an operator is likely to use. */
    public enum KeyKind {
        /** {@code openssl req -newkey rsa:2048 -nodes}: PKCS#8 "PRIVATE KEY". */
        RSA_PKCS8,
        /** {@code openssl genrsa -traditional}: PKCS#1 "RSA PRIVATE KEY". */
        RSA_PKCS1,
        /** {@code openssl ecparam -genkey}: an "EC PARAMETERS" block then the SEC1 "EC PRIVATE KEY". */
        EC_SEC1,
        /** {@code openssl genpkey -algorithm EC}: PKCS#8 "PRIVATE KEY". */
        EC_PKCS8
    }

    /** A signed certificate and its key, as PEM files. */
    public record Leaf(Path cert, Path key, BigInteger serial, String commonName) {
    }

    public static TestCa create(Path dir, String name) {
        TestCa ca = new TestCa(dir, name);
        ca.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca.key().toString(), "-out",
                ca.cert().toString(), "-days", "2", "-subj", "/CN=" + name, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return ca;
    }

    /** The CA's certificate (PEM): what a client is told to trust. */
    public Path cert() {
        return dir.resolve(name + "-ca.pem");
    }

    private Path key() {
        return dir.resolve(name + "-ca.key");
    }

    /** A server certificate for {@code commonName} with an RSA key in PKCS#8. */
    public Leaf server(String commonName) {
        return server(commonName, KeyKind.RSA_PKCS8, false);
    }

    /**
     * A server certificate for {@code commonName} (names localhost and 127.0.0.1); with {@code chain} its file holds
     * the CA's certificate after the leaf, as servers send them.
     */
    public Leaf server(String commonName, KeyKind kind, boolean chain) {
        long serial = SERIALS.incrementAndGet();
        String base = commonName + "-" + serial;
        Path key = dir.resolve(base + ".key");
        Path request = dir.resolve(base + ".csr");
        Path cert = dir.resolve(base + ".pem");
        switch (kind) {
            case RSA_PKCS8 -> openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.toString());
            case RSA_PKCS1 -> openssl("genrsa", "-traditional", "-out", key.toString(), "2048");
            case EC_SEC1 -> openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", key.toString());
            case EC_PKCS8 -> openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key.toString());
        }
        openssl("req", "-new", "-key", key.toString(), "-out", request.toString(), "-subj", "/CN=" + commonName);
        Path extensions = write(dir.resolve(base + ".ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                + "extendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n");
        openssl("x509", "-req", "-in", request.toString(), "-CA", cert().toString(), "-CAkey", key().toString(),
                "-set_serial", Long.toString(serial), "-days", "1", "-extfile", extensions.toString(), "-out", cert.toString());
        if (chain) {
            write(cert, read(cert) + read(cert()));
        }
        return new Leaf(cert, key, BigInteger.valueOf(serial), commonName);
    }

    /** Trusts this CA only. */
    public SSLContext sslContext() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("ca", certificate(cert()));
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException("cannot build a trust store of the test CA", e);
        }
    }

    /** Base64 of the SHA-256 of the certificate's public key (SubjectPublicKeyInfo), as Chromium's SPKI lists take it. */
    public static String spkiSha256(Path cert) {
        try {
            byte[] spki = certificate(cert).getPublicKey().getEncoded();
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(spki));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Copies a leaf's files over {@code cert} and {@code key}, each replaced in one move, as a rotation would. */
    public static void install(Leaf leaf, Path cert, Path key) {
        replace(leaf.cert(), cert);
        replace(leaf.key(), key);
    }

    public static void replace(Path from, Path to) {
        try {
            Path part = Files.createTempFile(to.getParent(), ".rotate", ".part");
            Files.copy(from, part, StandardCopyOption.REPLACE_EXISTING);
            Files.move(part, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static X509Certificate certificate(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the certificate " + pem, e);
        }
    }

    private void openssl(String... args) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run openssl (the TLS tests need it on the PATH)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path write(Path file, String text) {
        try {
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

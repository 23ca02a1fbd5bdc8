package io.drover.cli;

import io.drover.core.tls.Pem;
import io.drover.core.tls.PemException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CAs of {@code --cacert} / {@code DROVER_CACERT}: trusted instead of the system's CAs (as curl's --cacert), so that
 * only a certificate the operator's own CA signed is accepted for the server.
 */
final class CaCertificates {
    static final String WHERE = "(--cacert or DROVER_CACERT)";
    private static final int MAX_FILE_BYTES = 1 << 20;

    private CaCertificates() {
    }

    static SSLContext trusting(Path file) {
        List<X509Certificate> certificates;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
            if (bytes.length > MAX_FILE_BYTES) {
                throw new CliException(file + " " + WHERE + " is larger than " + MAX_FILE_BYTES + " bytes: not a PEM file");
            }
            certificates = Pem.certificates(new String(bytes, StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            throw new CliException(file + " " + WHERE + " cannot be read: " + e);
        } catch (PemException e) {
            throw new CliException(file + " " + WHERE + " " + (e.getMessage().startsWith("holds ") ? "" : ": ")
                    + e.getMessage());
        }
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                trusted.setCertificateEntry("ca-" + i, certificates.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new CliException("cannot trust the certificates of " + file + " " + WHERE + ": " + e);
        }
    }
}

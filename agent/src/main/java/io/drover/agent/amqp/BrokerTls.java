package io.drover.agent.amqp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** The TLS context of an amqps:// broker: its certificate chain must lead to the given CAs, or the system's. */
final class BrokerTls {
    private BrokerTls() {
    }

    /** @param caCert PEM file of CA certificates, or null for the JDK's trusted CAs */
    static SSLContext context(Path caCert) {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (caCert == null) {
                trust.init((KeyStore) null);
            } else {
                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                Collection<? extends Certificate> certificates;
                try (InputStream in = Files.newInputStream(caCert)) {
                    certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
                }
                if (certificates.isEmpty()) {
                    throw new IllegalArgumentException("--amqp-cacert " + caCert + " holds no PEM certificate");
                }
                int i = 0;
                for (Certificate certificate : certificates) {
                    store.setCertificateEntry("ca-" + i++, certificate);
                }
                trust.init(store);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("--amqp-cacert " + caCert + " cannot be used: " + e.getMessage(), e);
        }
    }
}

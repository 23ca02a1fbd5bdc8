package io.drover.server.http;

import java.security.KeyStore;
import java.security.cert.Certificate;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * HTTPS on the API's port with Jetty's own TLS: the certificate is held in an in-memory key store and can be replaced
 * while the server runs. Every answer carries HSTS, so browsers that saw the console once never try plain HTTP again.
 */
public final class HttpsConnector {
    /** One year, as {@code Strict-Transport-Security: max-age=31536000}. */
    static final long HSTS_MAX_AGE_SECONDS = 31_536_000;
    /** Protects nothing: the key store exists in this process's memory only, and Jetty's API wants a password. */
    private static final String IN_MEMORY = "drover-in-memory";

    private final SslContextFactory.Server tls = new SslContextFactory.Server();
    private volatile ServerCertificate current;

    public HttpsConnector(ServerCertificate certificate) {
        tls.setKeyStore(keyStore(certificate));
        tls.setKeyStorePassword(IN_MEMORY);
        tls.setKeyManagerPassword(IN_MEMORY);
        this.current = certificate;
    }

    /** The certificate new handshakes get. */
    public ServerCertificate current() {
        return current;
    }

    /** New handshakes get {@code certificate} from now on; connections already open keep the one they started with. */
    public synchronized void use(ServerCertificate certificate) {
        KeyStore previous = keyStore(current);
        try {
            tls.reload(factory -> factory.setKeyStore(keyStore(certificate)));
            current = certificate;
        } catch (Exception e) {
            try {
                tls.reload(factory -> factory.setKeyStore(previous));
            } catch (Exception again) {
                e.addSuppressed(again);
            }
            throw new IllegalStateException("Jetty refused the certificate " + certificate.describe() + ": " + e, e);
        }
    }

    /** The API's only connector: TLS, then HTTP/1.1 with the request marked secure and HSTS on every answer. */
    Connector connector(Server server, HttpConfiguration http, String host, int port) {
        http.addCustomizer(new SecureRequestCustomizer(false, true, HSTS_MAX_AGE_SECONDS, false));
        ServerConnector connector = new ServerConnector(server, new SslConnectionFactory(tls, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    private static KeyStore keyStore(ServerCertificate certificate) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("drover", certificate.key(), IN_MEMORY.toCharArray(),
                    certificate.chain().toArray(Certificate[]::new));
            return store;
        } catch (Exception e) {
            throw new IllegalStateException("cannot hold the certificate " + certificate.describe() + " in a key store: " + e, e);
        }
    }
}

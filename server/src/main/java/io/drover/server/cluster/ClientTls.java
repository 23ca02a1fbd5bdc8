package io.drover.server.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS of a client that checks who it talks to: the server's certificate must chain to the given CAs (or the
 * system's) and name the host it was reached at, which the JDK checks only when asked and the NATS client does not
 * ask. Optionally with a client certificate, from PEM files.
 */
final class ClientTls {
    private ClientTls() {
    }

    /**
     * A context trusting the CAs in {@code caFile} (null: the system's), presenting the certificate chain of
     * {@code certFile} with the PKCS#8 key of {@code keyFile} (both null: none), checking the server's host name.
     */
    static SSLContext context(Path caFile, Path certFile, Path keyFile) {
        try {
            TrustManager[] trust = null;
            if (caFile != null) {
                KeyStore cas = KeyStore.getInstance("PKCS12");
                cas.load(null, null);
                int i = 0;
                for (Certificate ca : certificates(caFile)) {
                    cas.setCertificateEntry("ca-" + i++, ca);
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(cas);
                trust = tmf.getTrustManagers();
            }
            KeyManager[] keys = null;
            if (certFile != null) {
                KeyStore own = KeyStore.getInstance("PKCS12");
                own.load(null, null);
                char[] none = new char[0];
                own.setKeyEntry("client", privateKey(keyFile), none, certificates(certFile).toArray(Certificate[]::new));
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(own, none);
                keys = kmf.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, new SecureRandom());
            return new HostChecking(context);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS for the cluster's NATS: " + e.getMessage(), e);
        }
    }

    static Collection<? extends Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new GeneralSecurityException(file + " holds no PEM certificate");
            }
            return certificates;
        }
    }

    static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException(file + " holds no PKCS#8 key (BEGIN PRIVATE KEY); convert it with "
                    + "openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new GeneralSecurityException(file + " holds a key that is neither RSA, EC nor Ed25519");
    }

    /** A context whose client sockets check that the server's certificate names the host they were opened to. */
    private static final class HostChecking extends SSLContext {
        HostChecking(SSLContext delegate) {
            super(new Spi(delegate), delegate.getProvider(), delegate.getProtocol());
        }
    }

    private static final class Spi extends SSLContextSpi {
        private final SSLContext delegate;

        Spi(SSLContext delegate) {
            this.delegate = delegate;
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) {
            throw new UnsupportedOperationException("already initialised");
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            return new Factory(delegate.getSocketFactory());
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            return delegate.getServerSocketFactory();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            throw new UnsupportedOperationException("only sockets check host names here");
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            SSLEngine engine = delegate.createSSLEngine(host, port);
            engine.setSSLParameters(checkingHost(engine.getSSLParameters()));
            return engine;
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return delegate.getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return delegate.getClientSessionContext();
        }
    }

    private static SSLParameters checkingHost(SSLParameters parameters) {
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        return parameters;
    }

    private static final class Factory extends SSLSocketFactory {
        private final SSLSocketFactory delegate;

        Factory(SSLSocketFactory delegate) {
            this.delegate = delegate;
        }

        private static Socket checking(Socket socket) {
            SSLSocket ssl = (SSLSocket) socket;
            ssl.setSSLParameters(checkingHost(ssl.getSSLParameters()));
            return ssl;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return delegate.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return delegate.getSupportedCipherSuites();
        }

        @Override
        public Socket createSocket(Socket socket, String host, int port, boolean autoClose) throws IOException {
            return checking(delegate.createSocket(socket, host, port, autoClose));
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return checking(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return checking(delegate.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return checking(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
            return checking(delegate.createSocket(address, port, localAddress, localPort));
        }

        @Override
        public Socket createSocket() throws IOException {
            return checking(delegate.createSocket());
        }
    }
}

package io.drover.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A TLS listener on loopback that forwards each connection to a plain TCP service: a real broker seen over TLS with a
 * certificate the test chooses. Certificates come from the JDK's keytool (self-signed: the certificate is its own CA).
 */
final class TlsProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final Thread acceptor;

    private TlsProxy(ServerSocket listener, int targetPort) {
        this.listener = listener;
        this.acceptor = Thread.ofVirtual().start(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    Thread.ofVirtual().start(() -> pipe(client, target));
                    Thread.ofVirtual().start(() -> pipe(target, client));
                } catch (IOException e) {
                    // closed, or one connection failed: the test sees it on the client side
                }
            }
        });
    }

    /** Listens with the key of {@code keystore} (PKCS#12, password "changeit") and forwards to 127.0.0.1:targetPort. */
    static TlsProxy start(Path keystore, int targetPort) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, "changeit".toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return new TlsProxy(context.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress()), targetPort);
    }

    int port() {
        return listener.getLocalPort();
    }

    /**
     * A self-signed certificate for {@code san} (keytool's -ext SAN syntax, e.g. "dns:localhost,ip:127.0.0.1"): its
     * PKCS#12 keystore at {@code dir/name.p12} and its PEM at {@code dir/name.pem}.
     */
    static Path certificate(Path dir, String name, String san) throws Exception {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Path keystore = dir.resolve(name + ".p12");
        run(List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=" + name, "-ext", "SAN=" + san, "-ext", "BC=ca:true", "-keystore", keystore.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit"));
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", keystore.toString(), "-storepass", "changeit",
                "-file", dir.resolve(name + ".pem").toString()));
        return keystore;
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(command.get(1) + " failed: " + out);
        }
    }

    private static void pipe(Socket from, Socket to) {
        try (from; to; InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side closed: both are closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        acceptor.interrupt();
    }
}

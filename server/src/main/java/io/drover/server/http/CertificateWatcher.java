package io.drover.server.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run every few seconds: reads the files of tls-cert and tls-key and, when what they hold changed, makes HTTPS present
 * the new pair. A pair that cannot serve (unreadable, malformed, a key of another certificate: a rotation caught half
 * way) is logged once and the certificate in use stays; the next change is tried again.
 */
public final class CertificateWatcher implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(CertificateWatcher.class);

    private final ServerCertificate.PemFiles files;
    private final HttpsConnector https;
    /** What the files held at the last look: their contents, or why they could not be read. */
    private Object seen;

    /** Reads the files once: a certificate that cannot serve stops the start. */
    public CertificateWatcher(ServerCertificate.PemFiles files) {
        this.files = files;
        ServerCertificate.Contents contents = ServerCertificate.contents(files);
        this.https = new HttpsConnector(ServerCertificate.parse(files, contents));
        this.seen = contents;
    }

    public HttpsConnector https() {
        return https;
    }

    @Override
    public void run() {
        try {
            reloadIfChanged();
        } catch (RuntimeException e) {
            log.error("the HTTPS certificate was not replaced; new connections still get {}", https.current().describe(), e);
        }
    }

    private void reloadIfChanged() {
        ServerCertificate.Contents contents;
        try {
            contents = ServerCertificate.contents(files);
        } catch (ServerCertificate.Unusable e) {
            if (!e.getMessage().equals(seen)) {
                seen = e.getMessage();
                refused(e);
            }
            return;
        }
        if (contents.equals(seen)) {
            return;
        }
        seen = contents;
        try {
            ServerCertificate next = ServerCertificate.parse(files, contents);
            https.use(next);
            log.info("HTTPS presents {} from {} and {} to new connections", next.describe(), files.cert(), files.key());
        } catch (ServerCertificate.Unusable e) {
            refused(e);
        }
    }

    private void refused(ServerCertificate.Unusable e) {
        log.error("the HTTPS certificate was not replaced: {} {}; new connections still get {}", e.part().setting(),
                e.getMessage(), https.current().describe());
    }
}

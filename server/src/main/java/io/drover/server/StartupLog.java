package io.drover.server;

import io.drover.server.config.ServerConfig;
import io.drover.server.store.Dialect;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.SaltMaster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a started server says: where it listens, the master key's fingerprint, and the warnings of its settings. */
final class StartupLog {
    /** The server's own logger: operators (and their log filters) know these lines under it. */
    private static final Logger log = LoggerFactory.getLogger(DroverServer.class);

    private StartupLog() {
    }

    static void started(DroverServer server, ServerConfig config, boolean https, String certificate) {
        SaltMaster master = server.master();
        log.info("drover server {} listening on {}, agents on {}:{}/{}, database {}", BuildVersion.current(), server.url(),
                config.saltHost(), master.publishPort(), master.requestPort(),
                server.database().dialect() == Dialect.POSTGRESQL ? "PostgreSQL"
                        : "SQLite " + config.dbUrl().substring("jdbc:sqlite:".length()));
        log.info("the master key's fingerprint (drover agent --master-finger): {}", RsaKeys.fingerprint(master.publicKeyPem()));
        if (https) {
            log.info("HTTPS presents {} from {}", certificate, config.tls().cert());
        } else if (!config.loopbackHost()) {
            log.warn("the API and the console listen on {} in clear: tokens and everything the API answers can be read and"
                    + " changed by anyone on the network path; set tls-cert and tls-key (docs/operations.md, Exposing Drover)"
                    + " or serve it on 127.0.0.1 behind an HTTPS reverse proxy", config.host());
        }
    }
}

package io.drover.server.cluster;

import io.drover.transport.master.SessionKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This server's session key kept equal to the cluster's ({@link SessionKeyStore}): adopted at start, rotated for the
 * whole cluster when a key is rejected or deleted here, and taken up again when another server rotated it (told by
 * its event, or found by {@link #refresh()} every lease period).
 */
public final class SharedSessionKey {
    private static final Logger log = LoggerFactory.getLogger(SharedSessionKey.class);

    private final SessionKeyStore store;
    private final SessionKey session;
    private volatile long generation;

    public SharedSessionKey(SessionKeyStore store, SessionKey session) {
        this.store = store;
        this.session = session;
        adopt(store.current());
    }

    /** A new key for every server (after a key is rejected or deleted here, so that the minion is cut off everywhere). */
    public synchronized void rotate() {
        adopt(store.rotate());
        log.info("rotated the cluster's session key to generation {}", generation);
    }

    /** Takes up the stored key when another server rotated it. */
    public synchronized void refresh() {
        if (store.generation() != generation) {
            adopt(store.current());
            log.info("took up the cluster's session key generation {}", generation);
        }
    }

    public long generation() {
        return generation;
    }

    private void adopt(SessionKeyStore.Generation g) {
        session.adopt(g.key());
        generation = g.number();
    }
}

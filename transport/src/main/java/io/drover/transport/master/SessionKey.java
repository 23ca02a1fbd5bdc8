package io.drover.transport.master;

import io.drover.transport.crypto.Crypticle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's AES session key, under which publishes and requests are encrypted. Whoever revokes minion keys holds it
 * from the start, before the master is bound; a rotation makes every minion re-authenticate on its next message.
 */
public final class SessionKey {
    private static final Logger log = LoggerFactory.getLogger(SessionKey.class);

    private volatile Crypticle current = new Crypticle(Crypticle.generateKeyString());

    /** A new session key (after a key is rejected or deleted, so that the minion is cut off). */
    public void rotate() {
        current = new Crypticle(Crypticle.generateKeyString());
        log.info("rotated the session key");
    }

    /** Uses this key from now on (the one the servers of a cluster share); a string from {@link #newKeyString()}. */
    public void adopt(String keyString) {
        if (!keyString.equals(current.keyString())) {
            current = new Crypticle(keyString);
            log.info("adopted the cluster's session key");
        }
    }

    /** A fresh key string: Salt's AES and HMAC keys. */
    public static String newKeyString() {
        return Crypticle.generateKeyString();
    }

    Crypticle current() {
        return current;
    }
}

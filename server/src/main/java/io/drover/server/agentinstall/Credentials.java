package io.drover.server.agentinstall;

import java.security.KeyPair;
import java.util.List;

/**
 * An SSH user's key pairs or password, in memory for one task's run only: never stored, logged or shown
 * ({@link #toString()} says nothing of them).
 */
record Credentials(String user, List<KeyPair> keys, String password) {
    @Override
    public String toString() {
        return "Credentials[" + user + "]";
    }
}

package io.drover.transport.minion;

/**
 * Told how each sign-in attempt of a {@link SaltMinion} ended (on the minion's loop thread: return quickly, throw
 * nothing). The agent writes it to a file, which its installer reads to say why an agent does not sign in.
 */
public interface SignInListener {
    /** How one sign-in ended. */
    enum Result {
        /** A session key: the master accepted this minion's key. */
        SIGNED_IN,
        /** No answer to the sign-in request (nothing listens, a firewall drops it, or the master is too slow). */
        UNREACHABLE,
        /** The master answered with a refusal text (too many sign-ins from this address, ...) or is full. */
        REFUSED,
        /** The master holds the key pending: an operator must accept it, or the enrollment token was not accepted. */
        PENDING_ACCEPTANCE,
        /** The master rejected (or denied) this minion's key. */
        KEY_REJECTED,
        /** The master's key does not have the {@code --master-finger} given. */
        FINGERPRINT_MISMATCH,
        /** The master's key is not the one this minion pinned before (or the reply is not signed with it). */
        MASTER_KEY_CHANGED,
        /** A reply that cannot be read or does not verify, or an error while signing in. */
        FAILED
    }

    /**
     * @param master the master asked
     * @param detail one line for a person (may hold text the master sent, shortened; no secrets)
     */
    void onSignIn(Result result, MinionConfig.Master master, String detail);

    /** Listens to nothing. */
    SignInListener NONE = new SignInListener() {
        @Override
        public void onSignIn(Result result, MinionConfig.Master master, String detail) {
        }
    };
}

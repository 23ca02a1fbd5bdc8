package io.drover.transport.master;

/** What the master's key store says about a minion presenting a public key. */
public enum KeyDecision {
    /** Known and accepted with this very key: the minion gets the session key. */
    ACCEPTED,
    /** Waiting for an operator (or auto-accept) decision. */
    PENDING,
    /** An operator rejected this id. */
    REJECTED,
    /** A different key was presented for an id already known: refused, and recorded. */
    DENIED,
    /** The configured maximum of minions is reached. */
    FULL
}

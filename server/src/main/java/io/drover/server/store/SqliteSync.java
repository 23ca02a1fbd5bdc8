package io.drover.server.store;

/** SQLite's {@code synchronous} setting in WAL mode, as the server offers it (sqlite-synchronous). */
public enum SqliteSync {
    /** Every commit is in the WAL file when it returns: a killed process loses nothing; a power loss can lose the last commits. */
    NORMAL,
    /** Every commit is also synced to the disk: nothing acknowledged is lost to a power loss either, at an fsync per commit. */
    FULL
}

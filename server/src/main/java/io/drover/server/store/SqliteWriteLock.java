package io.drover.server.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;
import org.jdbi.v3.core.transaction.DelegatingTransactionHandler;
import org.jdbi.v3.core.transaction.TransactionHandler;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * SQLite has one write lock per file, and its connections wait for it by sleeping and trying again: under a burst of
 * writers (a thousand agents signing in at once) some lose every try and fail after the busy timeout while others
 * write. So this process's writers queue here first, where a waiting writer is woken when the lock is free instead of
 * polling: every transaction, and every statement outside a transaction that is not a SELECT. Reads outside transactions never wait (WAL). A writer that cannot have the lock
 * within the timeout fails as SQLite's own busy timeout would.
 */
final class SqliteWriteLock {
    private final ReentrantLock lock = new ReentrantLock();
    private final long timeoutMillis;

    SqliteWriteLock(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    /** Thrown when the lock stayed taken for the whole timeout. */
    static final class Busy extends IllegalStateException {
        Busy(long millis) {
            super("the database stayed busy with other writes for " + millis + " ms");
        }
    }

    void acquire() {
        try {
            if (!lock.tryLock(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new Busy(timeoutMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to write to the database", e);
        }
    }

    void release() {
        lock.unlock();
    }

    /** Wraps Jdbi's transaction handler so that a transaction holds the lock from its start to its end. */
    TransactionHandler transactions(TransactionHandler delegate) {
        return new Transactions(delegate);
    }

    /** Takes the lock around a write statement run outside a transaction. */
    StatementCustomizer statements() {
        return new StatementCustomizer() {
            @Override
            public void beforeExecution(PreparedStatement stmt, StatementContext ctx) {
                if (isRead(ctx.getRenderedSql())) {
                    return;
                }
                acquire();
                ctx.addCleanable(SqliteWriteLock.this::release);
            }
        };
    }

    static boolean isRead(String sql) {
        String start = sql.stripLeading();
        return start.regionMatches(true, 0, "SELECT", 0, 6)
                || start.toUpperCase(Locale.ROOT).startsWith("PRAGMA FREELIST_COUNT");
    }

    private final class Transactions extends DelegatingTransactionHandler {
        /** Whether {@link #begin} took the lock, for a transaction begun and ended by hand. */
        private boolean begun;

        Transactions(TransactionHandler delegate) {
            super(delegate);
        }

        @Override
        public TransactionHandler specialize(Handle handle) throws SQLException {
            return new Transactions(getDelegate().specialize(handle));
        }

        @Override
        public void begin(Handle handle) {
            acquire();
            try {
                super.begin(handle);
                begun = true;
            } catch (RuntimeException e) {
                release();
                throw e;
            }
        }

        @Override
        public void commit(Handle handle) {
            try {
                super.commit(handle);
            } finally {
                releaseIfHeld();
            }
        }

        @Override
        public void rollback(Handle handle) {
            try {
                super.rollback(handle);
            } finally {
                releaseIfHeld();
            }
        }

        private void releaseIfHeld() {
            if (begun) {
                begun = false;
                release();
            }
        }

        @Override
        public <R, X extends Exception> R inTransaction(Handle handle, HandleCallback<R, X> callback) throws X {
            acquire();
            try {
                return super.inTransaction(handle, callback);
            } finally {
                release();
            }
        }

        @Override
        public <R, X extends Exception> R inTransaction(Handle handle, TransactionIsolationLevel level,
                                                        HandleCallback<R, X> callback) throws X {
            acquire();
            try {
                return super.inTransaction(handle, level, callback);
            } finally {
                release();
            }
        }
    }
}

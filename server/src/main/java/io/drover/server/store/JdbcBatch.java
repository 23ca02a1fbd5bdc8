package io.drover.server.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * One statement run once per row as a JDBC batch on the handle's connection, its parameters set by position: for the
 * statements that write a row per agent (a job's agents, their returns, the return events), where Jdbi's binding by
 * name cost more per row than SQLite's own work. Failures are Jdbi's {@link UnableToExecuteStatementException}, as
 * for any other statement.
 */
public final class JdbcBatch {
    /** Sets one row's parameters. */
    @FunctionalInterface
    public interface Row<T> {
        void set(PreparedStatement statement, T row) throws SQLException;
    }

    private JdbcBatch() {
    }

    /**
     * Runs the batch in the handle's transaction. Outside one, each row would be its own commit (on SQLite, every
     * modified page written to the log once per row) and would bypass the process's SQLite write lock, which sees
     * Jdbi's statements only: refused.
     */
    public static <T> void run(Handle h, String sql, Iterable<T> rows, Row<T> row) {
        if (!h.isInTransaction()) {
            throw new IllegalStateException("a batch of writes runs inside a transaction: " + sql);
        }
        try (PreparedStatement statement = h.getConnection().prepareStatement(sql)) {
            boolean any = false;
            for (T r : rows) {
                row.set(statement, r);
                statement.addBatch();
                any = true;
            }
            if (any) {
                statement.executeBatch();
            }
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException(e, null);
        }
    }

    /** A time as the database takes it: SQLite's fixed-width UTC text ({@link SqlTime}), PostgreSQL's timestamp. */
    public static Object time(Handle h, OffsetDateTime time) {
        return Dialect.of(h) == Dialect.SQLITE ? SqlTime.format(time) : time;
    }
}

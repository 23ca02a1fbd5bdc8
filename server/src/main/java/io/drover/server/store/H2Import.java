package io.drover.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Copies the H2 database of an earlier release ({@code drover.mv.db} in a data directory) into a new SQLite
 * {@code drover.db} beside it: every table, in one transaction, with each table's row count checked before the
 * commit. The copy is written in {@code .migrate-h2/} of the data directory and moved beside the H2 file when complete, and the H2 file is then kept as
 * {@code drover.mv.db.before-sqlite}, so an interrupted copy leaves the directory as it was.
 * <p>
 * The H2 driver is given by the caller: it is not on the server's class path (an H2 JDBC URL can run code), only in
 * {@code lib/h2/} of the distribution, for this copy.
 */
public final class H2Import {
    /** The schema version of the H2 database this copy reads: the last one an H2 release wrote. */
    static final String H2_SCHEMA_VERSION = "18";
    public static final String KEPT_SUFFIX = ".before-sqlite";

    private H2Import() {
    }

    /** Rows copied per table, in copy order, and where the H2 file now is. */
    public record Copied(Map<String, Long> rows, Path keptH2) {
    }

    /** Thrown when the directory cannot be copied as it is; nothing was changed. */
    public static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }
    }

    public static Copied run(Path dataDir, Driver h2, Consumer<String> progress) {
        Path h2File = dataDir.resolve(SqliteFile.H2_FILE);
        Path target = dataDir.resolve("drover.db");
        Path work = dataDir.resolve(".migrate-h2");
        Path partial = work.resolve("drover.db");
        if (dataDir.toString().contains(";")) {
            // the path goes into H2's URL, where ';' starts a setting (INIT=… runs SQL, and SQL can run code)
            throw new Refused("the data directory's path holds ';', which H2 would read as a setting: move it first");
        }
        if (!Files.isRegularFile(h2File)) {
            throw new Refused(dataDir + " holds no H2 database (" + SqliteFile.H2_FILE + ")");
        }
        if (Files.exists(target)) {
            throw new Refused(dataDir + " already holds a SQLite database (drover.db); move it away to copy the H2 one again");
        }
        deleteTree(work);
        try {
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + work, e);
        }
        Properties props = new Properties();
        // ACCESS_MODE_DATA=r: the H2 file is read, never written (a server of the earlier release still on it fails the open)
        String url = "jdbc:h2:file:" + dataDir.resolve("drover") + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;ACCESS_MODE_DATA=r";
        Map<String, Long> copied;
        try (Connection from = h2.connect(url, props)) {
            if (from == null) {
                throw new Refused("the H2 driver did not take " + url);
            }
            String version = schemaVersion(from);
            if (!H2_SCHEMA_VERSION.equals(version)) {
                throw new Refused("the H2 database is at schema version " + version + ", this copy reads version "
                        + H2_SCHEMA_VERSION + ": start the Drover release that wrote it once (it migrates the schema), stop it, "
                        + "then copy");
            }
            // the copy is made at the schema version H2 wrote; the later migrations then carry its rows forward (a
            // table a later version derives from them, such as job_agent from job and job_return, is filled so)
            try (Database to = Database.open("jdbc:sqlite:" + partial, "", "", 2, SqliteSync.NORMAL, H2_SCHEMA_VERSION)) {
                copied = copyAll(from, to, progress);
            }
            try (Database ignored = Database.open("jdbc:sqlite:" + partial, "", "", 2)) {
                progress.accept("schema migrated to the newest version");
            }
        } catch (SQLException e) {
            deleteTree(work);
            throw new Refused("cannot read the H2 database in " + dataDir + ": " + e.getMessage());
        } catch (RuntimeException e) {
            deleteTree(work);
            throw e;
        }
        try {
            Files.move(partial, target);
            deleteTree(work);
            Path kept = h2File.resolveSibling(SqliteFile.H2_FILE + KEPT_SUFFIX);
            Files.move(h2File, kept);
            return new Copied(copied, kept);
        } catch (IOException e) {
            throw new UncheckedIOException("the copy is complete in " + partial + " but could not be put in place", e);
        }
    }

    private static String schemaVersion(Connection h2) throws SQLException {
        try (Statement s = h2.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank DESC LIMIT 1")) {
            return rs.next() ? rs.getString(1) : "none";
        }
    }

    private static Map<String, Long> copyAll(Connection from, Database to, Consumer<String> progress) throws SQLException {
        Map<String, Long> copied = new LinkedHashMap<>();
        try (Connection c = to.dataSource().getConnection()) {
            try (Statement s = c.createStatement()) {
                // rows arrive table by table; the references are checked once all are in (foreign_key_check below)
                s.execute("PRAGMA foreign_keys = OFF");
            }
            c.setAutoCommit(false);
            try {
                for (String table : tables(c)) {
                    if (!hasTable(from, table)) {
                        continue; // made by a migration after the last H2 release: it starts empty
                    }
                    long rows = copyTable(from, c, table);
                    long there = count(c, table);
                    long source = count(from, table);
                    if (there != source || rows != source) {
                        throw new IllegalStateException("table " + table + ": " + source + " rows in H2, " + there
                                + " in SQLite after the copy");
                    }
                    copied.put(table, rows);
                    progress.accept(table + ": " + rows + " rows");
                }
                try (Statement s = c.createStatement(); ResultSet broken = s.executeQuery("PRAGMA foreign_key_check")) {
                    if (broken.next()) {
                        throw new IllegalStateException("the copied rows break a reference: table " + broken.getString(1)
                                + " row " + broken.getLong(2) + " refers to a missing row of " + broken.getString(3));
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA foreign_keys = ON");
                }
            }
        }
        return copied;
    }

    private static List<String> tables(Connection sqlite) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement s = sqlite.createStatement(); ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'"
                + " AND name NOT LIKE 'sqlite_%' AND name <> 'flyway_schema_history' ORDER BY rowid")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    private static boolean hasTable(Connection h2, String table) throws SQLException {
        try (PreparedStatement s = h2.prepareStatement("SELECT COUNT(*) FROM information_schema.tables WHERE LOWER(table_name) = ?")) {
            s.setString(1, table.toLowerCase(java.util.Locale.ROOT));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    private static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long copyTable(Connection from, Connection to, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        java.util.Set<String> inH2 = columnsInH2(from, table);
        try (Statement s = to.createStatement(); ResultSet rs = s.executeQuery("PRAGMA table_info(" + table + ")")) {
            while (rs.next()) {
                // a column added by a migration after the last H2 release takes its default
                if (inH2.contains(rs.getString("name").toLowerCase(java.util.Locale.ROOT))) {
                    columns.add(rs.getString("name"));
                }
            }
        }
        String list = String.join(", ", columns);
        String marks = String.join(", ", java.util.Collections.nCopies(columns.size(), "?"));
        long rows = 0;
        try (Statement read = from.createStatement();
             ResultSet rs = read.executeQuery("SELECT " + list + " FROM " + table);
             PreparedStatement insert = to.prepareStatement("INSERT INTO " + table + " (" + list + ") VALUES (" + marks + ")")) {
            while (rs.next()) {
                for (int i = 1; i <= columns.size(); i++) {
                    bind(insert, i, rs.getObject(i));
                }
                insert.addBatch();
                if (++rows % 1000 == 0) {
                    insert.executeBatch();
                }
            }
            insert.executeBatch();
        }
        return rows;
    }

    private static java.util.Set<String> columnsInH2(Connection h2, String table) throws SQLException {
        java.util.Set<String> columns = new java.util.HashSet<>();
        try (PreparedStatement s = h2.prepareStatement(
                "SELECT column_name FROM information_schema.columns WHERE LOWER(table_name) = ?")) {
            s.setString(1, table.toLowerCase(java.util.Locale.ROOT));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1).toLowerCase(java.util.Locale.ROOT));
                }
            }
        }
        return columns;
    }

    private static void bind(PreparedStatement insert, int i, Object value) throws SQLException {
        switch (value) {
            case null -> insert.setNull(i, java.sql.Types.NULL);
            case OffsetDateTime time -> insert.setString(i, SqlTime.format(time));
            case java.sql.Timestamp time -> insert.setString(i, SqlTime.format(time.toInstant().atOffset(ZoneOffset.UTC)));
            case Boolean flag -> insert.setBoolean(i, flag);
            case byte[] bytes -> insert.setBytes(i, bytes);
            case java.sql.Blob blob -> insert.setBytes(i, blob.getBytes(1, Math.toIntExact(blob.length())));
            case java.sql.Clob clob -> insert.setString(i, clob.getSubString(1, Math.toIntExact(clob.length())));
            case Long number -> insert.setLong(i, number);
            case Integer number -> insert.setLong(i, number);
            case Short number -> insert.setLong(i, number);
            case java.math.BigDecimal number -> insert.setString(i, number.toPlainString());
            case String text -> insert.setString(i, text);
            default -> throw new IllegalStateException("no SQLite form for a " + value.getClass().getName() + " in H2");
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}

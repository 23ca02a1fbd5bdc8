package io.drover.server.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A consistent copy of the embedded database while a server writes to it: {@code VACUUM INTO} reads one snapshot
 * (WAL lets it read while the server commits) and writes a compact, self-contained file, which is then checked.
 */
public final class SqliteBackup {
    private SqliteBackup() {
    }

    /** What was written: its size, its tables and the result of SQLite's integrity check on it. */
    public record Written(Path file, long bytes, int tables, String integrity) {
    }

    public static Written run(Path database, Path target) throws SQLException {
        if (!Files.isRegularFile(database)) {
            throw new IllegalArgumentException("no database at " + database);
        }
        if (Files.exists(target)) {
            throw new IllegalArgumentException(target + " exists; give a new file name");
        }
        Path dir = target.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no directory " + dir + " to write " + target.getFileName() + " in");
        }
        java.util.Properties props = new java.util.Properties();
        props.setProperty("busy_timeout", String.valueOf(Database.SQLITE_BUSY_TIMEOUT_MILLIS));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database, props);
             PreparedStatement vacuum = c.prepareStatement("VACUUM INTO ?")) {
            vacuum.setString(1, target.toAbsolutePath().toString());
            vacuum.execute();
        }
        // the backup holds what the database holds: readable by its owner only
        if (target.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            try {
                Files.setPosixFilePermissions(target, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot restrict " + target + " to its owner", e);
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + target); Statement s = c.createStatement()) {
            String integrity;
            try (ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                rs.next();
                integrity = rs.getString(1);
            }
            int tables;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE type = 'table'")) {
                rs.next();
                tables = rs.getInt(1);
            }
            return new Written(target, Files.size(target), tables, integrity);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

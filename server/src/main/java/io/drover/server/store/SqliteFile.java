package io.drover.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The embedded database's file, claimed by one server: SQLite lets several processes open a file, so two servers
 * started on one data directory would both run, each with its own agents. The claim is a lock on {@code FILE.lock}
 * held until {@link #close}. It also refuses a data directory whose only database is the H2 one of an earlier
 * release, which would otherwise be ignored silently while a new, empty database starts beside it.
 */
public final class SqliteFile implements AutoCloseable {
    /** The H2 database file an earlier release kept in the data directory. */
    public static final String H2_FILE = "drover.mv.db";

    private final FileChannel channel;
    private final FileLock lock;

    private SqliteFile(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Thrown when another process holds the claim. */
    public static final class InUse extends IllegalStateException {
        InUse(Path file) {
            super("the database " + file + " is in use by another Drover server; stop it or use another --data-dir");
        }
    }

    /** Thrown when the data directory holds an earlier release's H2 database and no SQLite one. */
    public static final class StrandedH2 extends IllegalStateException {
        StrandedH2(Path dir) {
            super(dir + " holds the H2 database of an earlier Drover (" + H2_FILE + "): run `drover db migrate-h2 " + dir
                    + "` once to copy it into SQLite, then start the server again");
        }
    }

    /** The file of a jdbc:sqlite: URL. */
    public static Path of(String url) {
        String rest = url.substring("jdbc:sqlite:".length());
        int query = rest.indexOf('?');
        return Path.of(query < 0 ? rest : rest.substring(0, query)).toAbsolutePath().normalize();
    }

    public static SqliteFile claim(Path file) {
        if (!Files.exists(file) && Files.exists(file.resolveSibling(H2_FILE))) {
            throw new StrandedH2(file.getParent());
        }
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        FileChannel channel = null;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new InUse(file);
            }
            return new SqliteFile(channel, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new InUse(file);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock " + lockFile, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was claimed
            }
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException ignored) {
            // the lock goes with the process anyway
        }
    }
}

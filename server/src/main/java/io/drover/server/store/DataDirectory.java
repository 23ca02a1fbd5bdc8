package io.drover.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** The server's data directory: the database (SQLite), keys and files live in it. */
public final class DataDirectory {
    private DataDirectory() {
    }

    /** A new data directory is the server user's alone (0700): the database in it holds the inventory and returns. */
    public static void create(Path dir) {
        try {
            if (!Files.exists(dir)) {
                Files.createDirectories(dir);
                if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dir, e);
        }
    }
}

package io.drover.dist;

import io.drover.server.store.H2Import;
import io.drover.server.store.SqliteBackup;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Driver;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover db}: work on the embedded database's file, on the server's host. */
@Command(name = "db", mixinStandardHelpOptions = true, description = "The embedded SQLite database: online backup, copy from H2.",
        subcommands = {DbCommand.Backup.class, DbCommand.MigrateH2.class})
final class DbCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(System.out);
        return 0;
    }

    @Command(name = "backup", mixinStandardHelpOptions = true,
            description = {"Writes a consistent copy of the embedded database to FILE, also while the server runs (one "
                    + "snapshot; the server keeps writing), and checks it. Restore: stop the server, delete drover.db-wal "
                    + "and drover.db-shm in the data directory, copy FILE over drover.db, start the server.",
                    "For PostgreSQL use pg_dump."})
    static final class Backup implements Callable<Integer> {
        @Parameters(paramLabel = "FILE", description = "The backup to write; must not exist.")
        Path file;

        @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "./data",
                description = "The server's data directory (default: ${DEFAULT-VALUE}).")
        Path dataDir;

        @Override
        public Integer call() throws Exception {
            Path database = dataDir.resolve("drover.db");
            if (!Files.isRegularFile(database)) {
                System.err.println("error: no embedded database at " + database + " (is --data-dir the server's?)");
                return 1;
            }
            try {
                SqliteBackup.Written written = SqliteBackup.run(database, file);
                if (!written.integrity().equals("ok")) {
                    System.err.println("error: the backup " + file + " fails SQLite's integrity check: " + written.integrity());
                    return 1;
                }
                System.out.printf("wrote %s: %,d bytes, %d tables, integrity ok%n", written.file(), written.bytes(), written.tables());
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "migrate-h2", mixinStandardHelpOptions = true,
            description = {"Copies the H2 database of an earlier Drover (drover.mv.db in DIR) into the embedded SQLite "
                    + "database (drover.db in DIR): every table in one transaction, each table's rows counted. The H2 file "
                    + "is kept as drover.mv.db" + H2Import.KEPT_SUFFIX + ". Stop the server first."})
    static final class MigrateH2 implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "The server's data directory.")
        Path dataDir;

        @Override
        public Integer call() throws Exception {
            Driver h2;
            try {
                h2 = h2Driver();
            } catch (IllegalStateException e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
            try {
                H2Import.Copied copied = H2Import.run(dataDir.toAbsolutePath().normalize(), h2, line -> System.out.println("  " + line));
                long rows = copied.rows().values().stream().mapToLong(Long::longValue).sum();
                System.out.printf("copied %,d rows of %d tables into %s; the H2 file is kept as %s%n", rows, copied.rows().size(),
                        dataDir.resolve("drover.db"), copied.keptH2());
                return 0;
            } catch (H2Import.Refused | io.drover.server.store.SqliteFile.InUse e) {
                System.err.println("error: " + e.getMessage());
                return 1;
            }
        }
    }

    /**
     * H2's driver, from lib/h2/ of the distribution in a class loader of its own (it is on no class path of the server),
     * or from the class path where a test put it.
     */
    static Driver h2Driver() {
        try {
            return (Driver) Class.forName("org.h2.Driver").getConstructor().newInstance();
        } catch (ReflectiveOperationException notOnClassPath) {
            String home = System.getProperty("drover.home");
            Path dir = home == null ? null : Path.of(home, "lib", "h2");
            if (dir == null || !Files.isDirectory(dir)) {
                throw new IllegalStateException("the H2 driver is not in this distribution (lib/h2/); run the command from the"
                        + " distribution's bin/drover");
            }
            try (var jars = Files.list(dir)) {
                URL[] urls = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).map(DbCommand::url).toArray(URL[]::new);
                ClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
                return (Driver) Class.forName("org.h2.Driver", true, loader).getConstructor().newInstance();
            } catch (IOException | ReflectiveOperationException e) {
                throw new IllegalStateException("cannot load the H2 driver from " + dir + ": " + e.getMessage(), e);
            }
        }
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException(e);
        }
    }
}

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.core.Hashing;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageException;
import io.drover.model.packages.PackageInfo;
import io.drover.model.packages.PackageMetadata;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover plugin package|upload|list|show|delete}: plugin packages and the server's package store. */
@Command(name = "plugin", description = "Plugin packages: build them, and manage the server's package store.",
        subcommands = {PluginCommand.Pack.class, PluginCommand.Upload.class, PluginCommand.ListPackages.class,
                PluginCommand.Show.class, PluginCommand.Delete.class})
public final class PluginCommand {
    static final List<Column<PackageInfo>> COLUMNS = List.of(Column.of("NAME", PackageInfo::name),
            Column.of("VERSION", PackageInfo::version), Column.of("CATEGORY", PackageInfo::category),
            Column.of("SIZE", PackageInfo::sizeBytes), Column.of("SOURCE", PackageInfo::source),
            Column.of("UPLOADED", PackageInfo::uploadedAt), new Column<>("SHA256", p -> Output.shortHash(p.sha256())));

    @Command(name = "package", description = "Check a plugin directory's metadata and write <name>-<version>.tgz.")
    static final class Pack implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "DIR") Path dir;
        @Option(names = {"-d", "--dest"}, paramLabel = "DIR", description = "Where to write the package (default: .).")
        Path dest = Path.of(".");

        @Override
        public Integer call() throws IOException {
            if (!Files.isDirectory(dir)) {
                throw new CliException(dir + " is not a directory");
            }
            byte[] tgz = PackageFiles.packageOf(dir);
            PackageMetadata m = metadataOf(tgz);
            Path out = dest.resolve(PackageArchive.fileName(m.name(), m.version()));
            Files.createDirectories(dest);
            Files.write(out, tgz);
            client.out().printf("%s (%d bytes, sha256 %s)%n", out, tgz.length, Hashing.sha256(tgz));
            return 0;
        }
    }

    @Command(name = "upload", description = "Upload a package (.tgz, or a plugin directory) to the server's store.")
    static final class Upload implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "FILE") Path file;
        @Option(names = "--force", description = "Replace a stored package with the same name and version.")
        boolean force;

        @Override
        public Integer call() {
            if (!Files.exists(file)) {
                throw new CliException(file + " does not exist");
            }
            byte[] tgz = PackageFiles.packageOf(file);
            PackageInfo stored = client.client().postRaw("/api/v1/packages" + (force ? "?force=true" : ""),
                    "application/gzip", tgz, PackageInfo.class);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("stored %s %s (sha256 %s)%n", stored.name(), stored.version(), stored.sha256());
            } else {
                client.output().printObject(stored);
            }
            return 0;
        }
    }

    @Command(name = "list", description = "List stored packages.")
    static final class ListPackages implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME", arity = "0..1", description = "Only this plugin's versions.") String name;

        @Override
        public Integer call() {
            List<PackageInfo> list = client.client().get("/api/v1/packages" + ApiClient.query(ApiClient.params("name", name)),
                    new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "show", description = "Show a stored package and its metadata.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME@VERSION") String ref;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/packages/" + path(ref), PackageInfo.class));
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete a stored version (refused while it is in use).")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME@VERSION") String ref;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/packages/" + path(ref));
            client.out().println("package " + ref + " deleted");
            return 0;
        }
    }

    private static String path(String ref) {
        int at = ref.lastIndexOf('@');
        if (at <= 0 || at == ref.length() - 1) {
            throw new CliException("'" + ref + "' is not NAME@VERSION");
        }
        return ref.substring(0, at) + "/" + ref.substring(at + 1);
    }

    static PackageMetadata metadataOf(byte[] tgz) {
        try {
            return PackageArchive.read(new ByteArrayInputStream(tgz)).metadata();
        } catch (PackageException e) {
            throw new CliException("not a valid plugin package: " + e.getMessage());
        }
    }
}

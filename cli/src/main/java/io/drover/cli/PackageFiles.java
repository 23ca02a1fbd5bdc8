package io.drover.cli;

import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageArchive.SourceFile;
import io.drover.core.packages.PackageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Packages a plugin directory into a .tgz on the operator's machine, checking its metadata first. */
final class PackageFiles {
    private PackageFiles() {
    }

    /** The package bytes of a directory, or the bytes of a .tgz file as they are. */
    static byte[] packageOf(Path path) {
        try {
            if (!Files.isDirectory(path)) {
                return Files.readAllBytes(path);
            }
            TreeMap<String, SourceFile> files = new TreeMap<>();
            try (Stream<Path> walk = Files.walk(path)) {
                for (Path p : walk.sorted().toList()) {
                    String relative = path.relativize(p).toString().replace('\\', '/');
                    if (Files.isSymbolicLink(p)) {
                        throw new CliException(p + " is a symbolic link; packages hold regular files only");
                    }
                    if (relative.startsWith(".") || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                        continue;
                    }
                    files.put(relative, new SourceFile(relative, Files.isExecutable(p) ? 0755 : 0644, Files.readAllBytes(p)));
                }
            }
            return PackageArchive.build(files);
        } catch (PackageException e) {
            throw new CliException(path + " is not a valid plugin package:" + System.lineSeparator() + "  "
                    + String.join(System.lineSeparator() + "  ", e.problems()));
        } catch (IOException e) {
            throw new CliException("cannot read " + path + ": " + e.getMessage());
        }
    }
}

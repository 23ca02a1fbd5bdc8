package io.drover.server.registries;

import io.drover.core.packages.Catalog.Candidate;
import io.drover.core.packages.PackageArchive;
import io.drover.core.packages.PackageArchive.SourceFile;
import io.drover.core.packages.PackageException;
import io.drover.core.packages.Version;
import io.drover.model.packages.PackageMetadata;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A directory of addons, as local and Git registries hold them: each sub-directory with a metadata.yaml is one
 * addon version, and each {@code .tgz} file is a package. Directories are packaged on fetch.
 */
final class DirectoryPackages {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DirectoryPackages.class);
    private final String registry;
    private final Path root;

    DirectoryPackages(String registry, Path root) {
        this.registry = registry;
        this.root = root;
    }

    RegistryReader.Listing list() {
        if (!Files.isDirectory(root)) {
            throw new RegistryException("registry " + registry + ": " + root + " is not a directory");
        }
        List<RegistryReader.Entry> entries = new ArrayList<>();
        List<RegistryReader.Skipped> skipped = new ArrayList<>();
        try (Stream<Path> children = Files.list(root)) {
            for (Path child : children.sorted().toList()) {
                String name = child.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                try {
                    if (Files.isDirectory(child) && Files.isRegularFile(child.resolve(PackageArchive.METADATA))) {
                        entries.add(entry(metadata(child, PackageMetadata.fromYaml(Files.readAllBytes(
                                child.resolve(PackageArchive.METADATA)))), name));
                    } else if (name.endsWith(".tgz") && Files.isRegularFile(child)) {
                        entries.add(entry(PackageArchive.read(new ByteArrayInputStream(Files.readAllBytes(child))).metadata(),
                                name));
                    }
                } catch (IllegalArgumentException | PackageException | RegistryException | IOException e) {
                    log.debug("registry {}: {} is skipped: {}", registry, child, e.getMessage());
                    skipped.add(new RegistryReader.Skipped(name, e.getMessage()));
                }
            }
        } catch (IOException e) {
            throw new RegistryException("registry " + registry + ": cannot read " + root + ": " + e.getMessage(), e);
        }
        return new RegistryReader.Listing(entries, skipped);
    }

    private PackageMetadata metadata(Path dir, PackageMetadata m) {
        if (m == null || m.name() == null || Version.tryParse(m.version()) == null) {
            throw new RegistryException("metadata.yaml has no valid name and version");
        }
        return m;
    }

    private RegistryReader.Entry entry(PackageMetadata m, String relativePath) {
        return new RegistryReader.Entry(new Candidate(m.name(), Version.parse(m.version()), registry, m.dependencies(),
                m.system().get("drover")), relativePath, null);
    }

    byte[] readFile(String relativePath) {
        Path file = root.resolve(relativePath).normalize();
        if (!file.startsWith(root.normalize())) {
            throw new RegistryException("registry " + registry + ": '" + relativePath + "' is outside the registry");
        }
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new RegistryException("registry " + registry + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    byte[] fetch(RegistryReader.Entry entry) {
        Path source = root.resolve(entry.relativePath());
        if (!Files.isDirectory(source)) {
            return readFile(entry.relativePath());
        }
        try {
            return PackageArchive.build(sources(source));
        } catch (PackageException e) {
            throw new PackageException(e.problems().stream().map(p -> entry.relativePath() + ": " + p).toList());
        } catch (IOException e) {
            throw new RegistryException("registry " + registry + ": cannot package " + source + ": " + e.getMessage(), e);
        }
    }

    /** The regular files under a directory, as package sources; symbolic links are refused. */
    static TreeMap<String, SourceFile> sources(Path dir) throws IOException {
        TreeMap<String, SourceFile> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted().toList()) {
                String relative = dir.relativize(p).toString().replace('\\', '/');
                if (Files.isSymbolicLink(p)) {
                    throw new PackageException("'" + relative + "' is a symbolic link; packages hold regular files only");
                }
                if (relative.startsWith(".git") || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                int mode = Files.isExecutable(p) ? 0755 : 0644;
                files.put(relative, new SourceFile(relative, mode, Files.readAllBytes(p)));
            }
        }
        return files;
    }
}

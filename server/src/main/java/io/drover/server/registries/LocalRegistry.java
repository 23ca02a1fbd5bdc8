package io.drover.server.registries;

import java.nio.file.Path;

/** A directory on the server: each sub-directory with a metadata.yaml, and each .tgz, is an addon version. */
final class LocalRegistry implements RegistryReader {
    private final String name;
    private final DirectoryPackages directory;

    LocalRegistry(String name, Path root) {
        this.name = name;
        this.directory = new DirectoryPackages(name, root.toAbsolutePath().normalize());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Listing list() {
        return directory.list();
    }

    @Override
    public byte[] readFile(String relativePath) {
        return directory.readFile(relativePath);
    }

    @Override
    public byte[] fetch(Entry entry) {
        return directory.fetch(entry);
    }
}

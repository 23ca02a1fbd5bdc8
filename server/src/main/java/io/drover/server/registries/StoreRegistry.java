package io.drover.server.registries;

import io.drover.server.packages.PackageStore;
import java.util.List;

/** The server's own package store as a registry named "store", searched before the configured ones. */
final class StoreRegistry implements RegistryReader {
    static final String NAME = "store";

    private final PackageStore store;

    StoreRegistry(PackageStore store) {
        this.store = store;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Listing list() {
        return new Listing(store.candidates().stream().map(c -> new Entry(c,
                PackageStore.relativePath(c.name(), c.version().toString()), null)).toList(), List.of());
    }

    @Override
    public byte[] readFile(String relativePath) {
        return store.readFile(relativePath);
    }

    @Override
    public byte[] fetch(Entry entry) {
        return store.read(entry.candidate().name(), entry.candidate().version().toString());
    }
}

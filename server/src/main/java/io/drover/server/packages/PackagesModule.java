package io.drover.server.packages;

import java.nio.file.Path;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The packages' part: the store, with the archives of packages from before they were kept in the database moved there. */
public final class PackagesModule {
    private static final Logger log = LoggerFactory.getLogger(PackagesModule.class);

    /** What the module needs: {@code dataDir} holds the files agents fetch. */
    public record Needs(Jdbi jdbi, Path dataDir, Clock clock) {
    }

    private final PackageStore store;

    public PackagesModule(Needs needs) {
        this.store = new PackageStore(needs.jdbi(), needs.dataDir().resolve("files"), needs.clock());
        int chunked = store.storeMissingChunks();
        if (chunked > 0) {
            log.info("stored {} package archive(s) in the database (from before packages were kept there)", chunked);
        }
    }

    public PackageStore store() {
        return store;
    }
}

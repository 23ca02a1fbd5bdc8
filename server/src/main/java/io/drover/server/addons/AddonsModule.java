package io.drover.server.addons;

import io.drover.core.packages.Version;
import io.drover.server.events.EventStore;
import io.drover.server.packages.PackageStore;
import io.drover.server.registries.Registries;
import io.drover.server.store.SecretBox;
import io.drover.server.subscriptions.SubscriptionStore;
import java.nio.file.Path;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;

/** The add-ons' parts: the registries packages come from, and the add-ons installed from them. */
public final class AddonsModule {

    /** What the module needs: {@code dataDir} holds the registries' clones; {@code serverVersion} the running release. */
    public record Needs(Jdbi jdbi, PackageStore packages, Path dataDir, SecretBox secrets, EventStore events,
                        Version serverVersion, SubscriptionStore subscriptions, Clock clock) {
    }

    private final Registries registries;
    private final AddonService addons;

    public AddonsModule(Needs needs) {
        this.registries = new Registries(needs.jdbi(), needs.packages(), needs.dataDir().resolve("registries"), needs.clock());
        this.addons = new AddonService(needs.jdbi(), needs.packages(), registries, needs.secrets(), needs.events(),
                needs.serverVersion(), needs.subscriptions(), needs.clock());
    }

    public Registries registries() {
        return registries;
    }

    public AddonService service() {
        return addons;
    }
}

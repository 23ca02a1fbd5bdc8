package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.match.Glob;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.keys.KeyStore;
import io.drover.server.store.Database;
import io.drover.server.store.SecretBox;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.master.KeyDecision;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A {@link JobService} on a test database whose agents' keys are accepted (ids {@code auto-*}), with no publisher and
 * a 1 MiB return limit: for tests of what the service stores and answers.
 */
final class JobServiceFixture {
    static final String KEY = RsaKeys.publicPem((RSAPublicKey) RsaKeys.generate().getPublic());

    private JobServiceFixture() {
    }

    /** The service, its caller closes it; each of {@code agents} (matching {@code auto-*}) has an accepted key. */
    static JobService start(Database db, String... agents) {
        Clock clock = Clock.systemUTC();
        EventStore events = new EventStore(db.jdbi(), new EventBus(), clock);
        AgentRegistry registry = new AgentRegistry(db.jdbi(), events, new InventoryService(db.jdbi(), new InventoryStore(), events),
                null, clock);
        KeyStore keys = new KeyStore(db.jdbi(), events, List.of(Glob.compile("auto-*")), new EnrollmentTokenStore(db.jdbi(), clock),
                registry, () -> { }, clock);
        for (String agent : agents) {
            assertThat(keys.decide(agent, KEY, null)).isEqualTo(KeyDecision.ACCEPTED);
        }
        return new JobService(db.jdbi(), events, keys, id -> Map.of(), registry::businesses, Map.of(), (load, minions) -> { },
                () -> () -> { }, 1 << 20, SecretBox.of(new byte[32]), clock);
    }
}

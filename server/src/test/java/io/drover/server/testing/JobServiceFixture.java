package io.drover.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.match.Glob;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.jobs.JobService;
import io.drover.server.keys.KeyStore;
import io.drover.server.store.Database;
import io.drover.server.store.SecretBox;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.envelope.JobPublisher;
import io.drover.transport.master.KeyDecision;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a {@link JobService} stands on in a test: the database's event store, the agent registry and a key store whose
 * agents' keys are accepted (ids {@code auto-*}); the service itself with a 1 MiB return limit and the publisher the
 * test observes.
 */
public record JobServiceFixture(Database db, EventStore events, AgentRegistry agents, KeyStore keys, Clock clock) {
    public static final String KEY = RsaKeys.publicPem((RSAPublicKey) RsaKeys.generate().getPublic());

    /** Events on {@code bus}; each of {@code accepted} (matching {@code auto-*}) has an accepted key. */
    public static JobServiceFixture on(Database db, EventBus bus, Clock clock, String... accepted) {
        EventStore events = new EventStore(db.jdbi(), bus, clock);
        AgentRegistry agents = new AgentRegistry(db.jdbi(), events, new InventoryService(db.jdbi(), new InventoryStore(), events),
                null, clock);
        KeyStore keys = new KeyStore(db.jdbi(), events, List.of(Glob.compile("auto-*")), new EnrollmentTokenStore(db.jdbi(), clock),
                agents, () -> { }, clock);
        for (String agent : accepted) {
            assertThat(keys.decide(agent, KEY, null)).isEqualTo(KeyDecision.ACCEPTED);
        }
        return new JobServiceFixture(db, events, agents, keys, clock);
    }

    /** A service with no publisher; its caller closes it. */
    public static JobService start(Database db, String... accepted) {
        return on(db, new EventBus(), Clock.systemUTC(), accepted).jobs((load, minions) -> { });
    }

    /** A service that publishes through {@code publisher} and wants no peer's returns; its caller closes it. */
    public JobService jobs(JobPublisher publisher) {
        return jobs(publisher, () -> () -> { });
    }

    /** A service that publishes through {@code publisher}; its caller closes it. */
    public JobService jobs(JobPublisher publisher, Supplier<AutoCloseable> peerReturns) {
        return new JobService(db.jdbi(), events, keys, id -> Map.of(), agents::businesses, Map.of(), publisher, peerReturns,
                1 << 20, SecretBox.of(new byte[32]), clock);
    }
}

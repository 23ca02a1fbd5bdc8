package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Registries added before the rule on addresses read in clear (schema 26) keep working after an upgrade: the ones read
 * in clear are marked as accepted, the others are not.
 */
class RegistryTransportMigrationTest {

    @OnBothDatabases
    void registriesReadInClearBeforeTheUpgradeAreMarkedAccepted(String kind) {
        TestDatabases.Target target = TestDatabases.named(kind);
        try {
            try (Database before = Database.open(target.url(), target.user(), target.password(), 2, SqliteSync.NORMAL, "25")) {
                before.jdbi().useHandle(h -> {
                    String[][] rows = {{"web", "http", "HTTP://addons.example.com/"}, {"team", "git", "git://git.example.com/a.git"},
                        {"tls", "http", "https://addons.example.com/"}, {"ssh", "git", "git@git.example.com:ops/addons.git"},
                        {"disk", "local", "/srv/addons"}};
                    int position = 1;
                    for (String[] r : rows) {
                        h.createUpdate("INSERT INTO registry (name, type, url, position, created_at) VALUES (:n, :t, :u, :p, :at)")
                                .bind("n", r[0]).bind("t", r[1]).bind("u", r[2]).bind("p", position++)
                                .bind("at", OffsetDateTime.parse("2026-11-01T00:00:00Z")).execute();
                    }
                });
            }
            try (Database after = target.open()) {
                Map<String, Boolean> insecure = after.jdbi().withHandle(h -> h.createQuery("SELECT name, insecure FROM registry")
                        .map((rs, ctx) -> Map.entry(rs.getString("name"), rs.getBoolean("insecure"))).list())
                        .stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                assertThat(insecure).containsExactlyInAnyOrderEntriesOf(
                        Map.of("web", true, "team", true, "tls", false, "ssh", false, "disk", false));
            }
        } finally {
            target.drop().run();
        }
    }
}

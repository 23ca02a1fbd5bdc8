package io.drover.server.addons;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** The addon repository on SQLite and on the real PostgreSQL. */
class AddonStoreTest {
    final AddonStore repository = new AddonStore();

    @OnBothDatabases
    void enabledAddonsAreStoredUpgradedListedAndRemoved(String kind) {
        OffsetDateTime t0 = OffsetDateTime.of(2026, 11, 25, 1, 0, 0, 0, ZoneOffset.UTC);
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            for (String[] p : new String[][] {{"demo-exporter", "1.0.0"}, {"demo-exporter", "1.1.0"}, {"libcompat", "1.2.0"}}) {
                h.createUpdate("""
                                INSERT INTO package (name, version, category, sha256, size_bytes, metadata, source, uploaded_at)
                                VALUES (:name, :version, 'scripts', 'x', 1, '{}', 'upload', CURRENT_TIMESTAMP)""")
                        .bind("name", p[0]).bind("version", p[1]).execute();
            }
            repository.insert(h, "demo-exporter", "1.0.0", "web", "v1:sealed", t0);
            repository.insert(h, "libcompat", "1.2.0", "store", "v1:other", t0);
            repository.update(h, "demo-exporter", "1.1.0", "git", "v1:resealed", t0.plusHours(1));

            AddonStore.Enabled demo = repository.find(h, "demo-exporter").orElseThrow();
            assertThat(demo.version()).isEqualTo("1.1.0");
            assertThat(demo.registry()).isEqualTo("git");
            assertThat(demo.sealedParams()).isEqualTo("v1:resealed");
            assertThat(demo.enabledAt().toInstant()).isEqualTo(t0.toInstant());
            assertThat(demo.updatedAt().toInstant()).isEqualTo(t0.plusHours(1).toInstant());
            assertThat(repository.all(h)).extracting(AddonStore.Enabled::name).containsExactly("demo-exporter", "libcompat");

            repository.delete(h, "demo-exporter");
            assertThat(repository.find(h, "demo-exporter")).isEmpty();
            assertThat(repository.all(h)).extracting(AddonStore.Enabled::name).containsExactly("libcompat");
        }));
    }
}

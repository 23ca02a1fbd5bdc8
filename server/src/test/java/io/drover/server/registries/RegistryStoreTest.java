package io.drover.server.registries;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.packages.RegistryInfo;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;

/** The registry repository on SQLite and on the real PostgreSQL: registries keep the order they were added in. */
class RegistryStoreTest {
    final RegistryStore repository = new RegistryStore(Clock.systemUTC());

    @OnBothDatabases
    void registriesAreLookedUpInTheOrderTheyWereAdded(String kind) {
        TestDatabases.on(kind, db -> db.jdbi().useTransaction(h -> {
            repository.append(h, "web", "http", "https://addons.example.com/index.yaml", null, null, false);
            repository.append(h, "team", "git", "git://git.example.com/ops/addons.git", "addons", "main", true);
            repository.append(h, "aaa-local", "local", "/srv/addons", null, null, false);
            assertThat(repository.all(h)).extracting(RegistryInfo::name).containsExactly("web", "team", "aaa-local");
            RegistryInfo team = repository.find(h, "team").orElseThrow();
            assertThat(team.path()).isEqualTo("addons");
            assertThat(team.ref()).isEqualTo("main");
            assertThat(team.position()).isEqualTo(2);
            assertThat(team.insecure()).isTrue();
            assertThat(repository.find(h, "web").orElseThrow().insecure()).isFalse();
            repository.delete(h, "team");
            repository.append(h, "later", "local", "/srv/more", null, null, false);
            assertThat(repository.all(h)).extracting(RegistryInfo::name).containsExactly("web", "aaa-local", "later");
            assertThat(repository.find(h, "team")).isEmpty();
        }));
    }
}

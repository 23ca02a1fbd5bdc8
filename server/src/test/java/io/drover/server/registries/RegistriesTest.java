package io.drover.server.registries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.drover.model.api.Problem.FieldError;
import io.drover.model.packages.RegistryInfo;
import io.drover.model.packages.RegistryRequest;
import io.drover.server.errors.DomainException;
import io.drover.server.packages.PackageStore;
import io.drover.server.store.Database;
import io.drover.server.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Adding registries: what the rule on addresses refuses, what it takes, and a row that predates the rule. */
class RegistriesTest {
    @TempDir
    Path dir;
    TestDatabases.Target target;
    Database db;
    Registries registries;

    @BeforeEach
    void open() {
        target = TestDatabases.sqlite();
        db = target.open();
        registries = new Registries(db.jdbi(), new PackageStore(db.jdbi(), dir.resolve("files"), Clock.systemUTC()),
                dir.resolve("clones"), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        db.close();
        target.drop().run();
    }

    List<FieldError> refusal(RegistryRequest request) {
        DomainException e = catchThrowableOfType(DomainException.class, () -> registries.add(request));
        assertThat(e).as("refused: " + request).isNotNull();
        assertThat(e.kind()).isEqualTo(DomainException.Kind.INVALID);
        return e.errors();
    }

    @Test
    void anAddressInClearIsTakenOnlyWhenTheOperatorAcceptsIt() {
        assertThat(refusal(new RegistryRequest("web", "http", "http://addons.example.invalid/", null, null)))
                .extracting(FieldError::field, FieldError::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("url", "travels in clear (http://): anyone on the network path"
                        + " could change what the registry serves, and so what runs on your hosts; use https://, or add the"
                        + " registry as insecure (insecure: true, or drover registry add --insecure) to accept that"));
        RegistryInfo accepted = registries.add(new RegistryRequest("web", "http", "http://addons.example.invalid/", null, null, true));
        assertThat(accepted.insecure()).isTrue();
        assertThat(registries.add(new RegistryRequest("tls", "http", "https://addons.example.invalid/", null, null)).insecure())
                .isFalse();
        assertThat(registries.list()).extracting(RegistryInfo::name).containsExactly("web", "tls");
    }

    @Test
    void whatNoFlagMakesReadableIsRefusedWhenAdded() {
        assertThat(refusal(new RegistryRequest("ssh", "git", "git@git.example.invalid:ops/addons.git", null, null, true)))
                .singleElement().satisfies(e -> assertThat(e.message()).startsWith("is SSH"));
        assertThat(refusal(new RegistryRequest("loop", "git", "http://127.0.0.1:1/addons.git", null, null)))
                .singleElement().satisfies(e -> assertThat(e.message()).contains("redirects"));
        assertThat(refusal(new RegistryRequest("fooled", "git", "git://127.0.0.1?@evil.example.invalid/a.git", null, null, true)))
                .singleElement().satisfies(e -> assertThat(e.message()).startsWith("is not an address"));
        assertThat(refusal(new RegistryRequest("nohost", "http", "http:evil.example.invalid/index.yaml", null, null, true)))
                .singleElement().satisfies(e -> assertThat(e.message()).contains("with a host"));
        assertThat(refusal(new RegistryRequest("disk", "local", dir.toString(), null, null, true)))
                .extracting(FieldError::field).containsExactly("insecure");
        assertThat(registries.list()).isEmpty();
    }

    @Test
    void anOversizedAddressPathOrRefIsRefusedBeforeTheDatabaseSeesIt() {
        String long3000 = "x".repeat(3000);
        assertThat(refusal(new RegistryRequest("big", "http", "https://addons.example.invalid/" + long3000, null, null)))
                .extracting(FieldError::field, FieldError::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("url", "is 3031 characters; at most 2048"));
        assertThat(refusal(new RegistryRequest("big", "git", "https://git.example.invalid/a.git", long3000, long3000)))
                .extracting(FieldError::field).containsExactly("path", "ref");
        assertThat(registries.list()).isEmpty();
    }

    @Test
    void aGitRegistryAddedBeforeTheRuleIsListedAsUnreadableWithWhy() {
        db.jdbi().useHandle(h -> new RegistryStore(Clock.systemUTC())
                .append(h, "old-ssh", "git", "ssh://git@git.example.invalid/addons.git", null, null, false));
        assertThat(registries.snapshot().unreadable()).containsOnlyKeys("old-ssh")
                .hasEntrySatisfying("old-ssh", why -> assertThat(why).startsWith("registry old-ssh: ssh://").contains("is SSH"));
    }
}

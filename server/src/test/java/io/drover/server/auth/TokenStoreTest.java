package io.drover.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.drover.core.Hashing;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.auth.CreatedToken;
import io.drover.model.auth.Role;
import io.drover.model.auth.TokenInfo;
import io.drover.model.auth.TokenRequest;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** API tokens on SQLite and on the real PostgreSQL. */
class TokenStoreTest {

    @OnBothDatabases
    void tokensAreCreatedListedAndAuthenticated(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-11-25T10:00:00Z").toEpochMilli());
            TokenStore store = new TokenStore(db.jdbi(), clock);
            assertThat(store.isEmpty()).isTrue();
            CreatedToken admin = store.create(new TokenRequest(" root ", Role.ADMIN, null));
            CreatedToken ops = store.create(new TokenRequest("ops", Role.OPERATOR, List.of(7L, 2L, 7L)));
            assertThat(store.isEmpty()).isFalse();

            assertThat(admin.token()).startsWith("drv_").hasSize(4 + 43).isNotEqualTo(ops.token());
            assertThat(ops.info().bkBizIds()).as("distinct and sorted").containsExactly(2L, 7L);
            List<TokenInfo> listed = store.list();
            assertThat(listed).extracting(TokenInfo::id).containsExactly(admin.info().id(), ops.info().id());
            assertThat(listed).usingRecursiveFieldByFieldElementComparatorIgnoringFields("createdAt")
                    .containsExactly(admin.info(), ops.info());
            assertThat(listed.get(0).name()).isEqualTo("root");
            assertThat(listed.get(0).bkBizIds()).isEmpty();
            assertThat(listed.get(1).createdAt().toInstant()).isCloseTo(ops.info().createdAt().toInstant(), within(1, ChronoUnit.MILLIS));
            assertThat(listed).allSatisfy(t -> assertThat(t.lastUsedAt()).isNull());
            List<String> hashes = db.jdbi().withHandle(h -> h.createQuery("SELECT token_hash FROM api_token ORDER BY id")
                    .mapTo(String.class).list());
            assertThat(hashes).as("only the hash is stored").containsExactly(Hashing.sha256(admin.token()), Hashing.sha256(ops.token()));

            assertThat(store.authenticate(ops.token())).contains(new Principal(ops.info().id(), "ops", Role.OPERATOR, Set.of(2L, 7L)));
            assertThat(store.authenticate(admin.token())).contains(new Principal(admin.info().id(), "root", Role.ADMIN, Set.of()));
            assertThat(store.list()).allSatisfy(t -> assertThat(t.lastUsedAt().toInstant()).isEqualTo(clock.instant()));
            Instant firstUse = clock.instant();
            clock.advance(Duration.ofSeconds(60));
            store.authenticate(ops.token());
            assertThat(store.list().get(1).lastUsedAt().toInstant()).as("the last use is written at most once a minute")
                    .isEqualTo(firstUse);
            clock.advance(Duration.ofSeconds(1));
            store.authenticate(ops.token());
            assertThat(store.list().get(1).lastUsedAt().toInstant()).isEqualTo(clock.instant());
            for (String wrong : Arrays.asList(null, "", "drv_unknown", ops.token().substring(4), ops.token() + "x",
                    "drv_" + "a".repeat(200))) {
                assertThat(store.authenticate(wrong)).as(String.valueOf(wrong)).isEmpty();
            }
        });
    }

    @OnBothDatabases
    void badRequestsNameEveryBadField(String kind) {
        TestDatabases.on(kind, db -> {
            TokenStore store = new TokenStore(db.jdbi(), Clock.systemUTC());
            Map<TokenRequest, List<String>> cases = Map.of(
                    new TokenRequest(" ", Role.VIEWER, null), List.of("name"),
                    new TokenRequest("x".repeat(129), Role.VIEWER, null), List.of("name"),
                    new TokenRequest("t", null, null), List.of("role"),
                    new TokenRequest("t", Role.VIEWER, Arrays.asList(3L, 0L, null)), List.of("bk_biz_ids[1]", "bk_biz_ids[2]"),
                    new TokenRequest("t", Role.ADMIN, List.of(3L)), List.of("bk_biz_ids"),
                    new TokenRequest(null, null, List.of(-1L)), List.of("name", "role", "bk_biz_ids[0]"),
                    new TokenRequest("t", Role.ALERTS, List.of(), 0), List.of("ttl_hours"),
                    new TokenRequest("t", Role.VIEWER, List.of(), -5), List.of("ttl_hours"),
                    new TokenRequest("t", Role.VIEWER, List.of(), TokenRequest.MAX_TTL_HOURS + 1), List.of("ttl_hours"));
            cases.forEach((request, fields) -> assertThatThrownBy(() -> store.create(request)).as(request.toString())
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.kind()).isEqualTo(DomainException.Kind.INVALID);
                        assertThat(e.errors()).extracting(FieldError::field).containsExactlyElementsOf(fields);
                    }));
            assertThat(store.create(new TokenRequest("x".repeat(128), Role.VIEWER, List.of())).info().name()).hasSize(128);
            assertThat(store.list()).hasSize(1);
        });
    }

    @OnBothDatabases
    void aTokenWithALifetimeStopsAuthenticatingWhenItEnds(String kind) {
        TestDatabases.on(kind, db -> {
            ManualClock clock = new ManualClock(Instant.parse("2026-11-27T10:00:00Z").toEpochMilli());
            TokenStore store = new TokenStore(db.jdbi(), clock);
            CreatedToken hook = store.create(new TokenRequest("alertmanager", Role.ALERTS, List.of(2L), 24));
            CreatedToken forever = store.create(new TokenRequest("ci", Role.VIEWER, List.of()));
            assertThat(hook.info().expiresAt().toInstant()).isEqualTo(Instant.parse("2026-11-28T10:00:00Z"));
            assertThat(store.list()).extracting(t -> t.expiresAt() == null ? null : t.expiresAt().toInstant())
                    .containsExactly(Instant.parse("2026-11-28T10:00:00Z"), null);
            assertThat(store.authenticate(hook.token())).contains(new Principal(hook.info().id(), "alertmanager", Role.ALERTS, Set.of(2L)));
            clock.advance(Duration.ofHours(24).minusSeconds(1));
            assertThat(store.authenticate(hook.token())).as("a second before it ends").isPresent();
            clock.advance(Duration.ofSeconds(1));
            assertThat(store.authenticate(hook.token())).as("when it ends").isEmpty();
            clock.advance(Duration.ofDays(3650));
            assertThat(store.authenticate(forever.token())).as("a token without a lifetime").isPresent();
        });
    }

    @OnBothDatabases
    void revokedTokensNoLongerAuthenticate(String kind) {
        TestDatabases.on(kind, db -> {
            TokenStore store = new TokenStore(db.jdbi(), Clock.systemUTC());
            CreatedToken token = store.create(new TokenRequest("ci", Role.VIEWER, List.of(4L)));
            TokenInfo revoked = store.revoke(token.info().id());
            assertThat(revoked.revokedAt()).isNotNull();
            assertThat(revoked.name()).isEqualTo("ci");
            assertThat(store.authenticate(token.token())).isEmpty();
            assertThat(store.revoke(token.info().id()).revokedAt()).as("revoking twice keeps the first time")
                    .isEqualTo(revoked.revokedAt());
            assertThatThrownBy(() -> store.revoke(999)).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.kind()).isEqualTo(DomainException.Kind.NOT_FOUND));
        });
    }

    @OnBothDatabases
    void aDuplicateHashIsTheNamedConstraint(String kind) {
        TestDatabases.on(kind, db -> {
            String insert = "INSERT INTO api_token (name, token_hash, role, biz_ids, created_at) "
                    + "VALUES ('t', 'same', 'viewer', '[]', CURRENT_TIMESTAMP)";
            db.jdbi().useHandle(h -> h.execute(insert));
            assertThatThrownBy(() -> db.jdbi().useHandle(h -> h.execute(insert)))
                    .satisfies(e -> assertThat(Sql.violatedConstraint(e)).isEqualTo("api_token_hash_unique"));
        });
    }
}

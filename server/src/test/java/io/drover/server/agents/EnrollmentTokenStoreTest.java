package io.drover.server.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.drover.model.agents.CreatedEnrollmentToken;
import io.drover.model.agents.EnrollmentTokenInfo;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.auth.Role;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Database;
import io.drover.server.testing.ManualClock;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Enrollment tokens on SQLite and on the real PostgreSQL. */
class EnrollmentTokenStoreTest {
    static final Principal ADMIN = Principal.system("test");
    static final Principal SHOP_ONLY = new Principal(5, "shop-operator", Role.OPERATOR, Set.of(2L));

    static void businesses(Database db) {
        db.jdbi().useHandle(h -> h.execute("INSERT INTO business (bk_biz_id, bk_biz_name, attributes) VALUES "
                + "(2, 'shop', '{}'), (3, 'bank', '{}')"));
    }

    static DomainException.Kind kindOf(Runnable action) {
        try {
            action.run();
        } catch (DomainException e) {
            return e.kind();
        }
        throw new AssertionError("no DomainException");
    }

    @OnBothDatabases
    void tokensAreCreatedListedByBusinessAndRevoked(String kind) {
        TestDatabases.on(kind, db -> {
            businesses(db);
            EnrollmentTokenStore store = new EnrollmentTokenStore(db.jdbi(), Clock.systemUTC());
            CreatedEnrollmentToken shop = store.create(SHOP_ONLY, new EnrollmentTokenRequest(" racks ", 2L, 48L));
            CreatedEnrollmentToken bank = store.create(ADMIN, new EnrollmentTokenRequest("bank", 3L, null));

            assertThat(shop.token()).startsWith(EnrollmentTokenStore.PREFIX).isNotEqualTo(bank.token());
            EnrollmentTokenInfo info = shop.info();
            assertThat(List.of(info.name(), info.bkBizId(), info.uses())).containsExactly("racks", 2L, 0L);
            assertThat(info.revokedAt()).isNull();
            assertThat(info.expiresAt().toInstant()).isCloseTo(info.createdAt().toInstant().plus(48, ChronoUnit.HOURS),
                    within(1, ChronoUnit.MILLIS));
            assertThat(bank.info().expiresAt().toInstant()).as("a day unless told").isCloseTo(
                    bank.info().createdAt().toInstant().plus(24, ChronoUnit.HOURS), within(1, ChronoUnit.MILLIS));

            assertThat(store.list(ADMIN)).containsExactly(shop.info(), bank.info());
            assertThat(store.list(SHOP_ONLY)).containsExactly(shop.info());

            // another business's token is as missing to a scoped token: its business is not told
            assertThat(kindOf(() -> store.revoke(SHOP_ONLY, bank.info().id()))).isEqualTo(DomainException.Kind.NOT_FOUND);
            EnrollmentTokenInfo revoked = store.revoke(SHOP_ONLY, shop.info().id());
            assertThat(revoked.revokedAt()).isNotNull();
            assertThat(store.revoke(ADMIN, shop.info().id())).as("revoking twice keeps the first time").isEqualTo(revoked);
            assertThat(kindOf(() -> store.revoke(ADMIN, 999))).isEqualTo(DomainException.Kind.NOT_FOUND);
            assertThat(store.list(ADMIN)).containsExactly(revoked, bank.info());
        });
    }

    @OnBothDatabases
    void badRequestsAreRefusedAndStoreNothing(String kind) {
        TestDatabases.on(kind, db -> {
            businesses(db);
            EnrollmentTokenStore store = new EnrollmentTokenStore(db.jdbi(), Clock.systemUTC());
            Map<EnrollmentTokenRequest, List<String>> invalid = Map.of(
                    new EnrollmentTokenRequest(" ", 2L, null), List.of("name"),
                    new EnrollmentTokenRequest("n".repeat(129), 2L, null), List.of("name"),
                    new EnrollmentTokenRequest("t", null, null), List.of("bk_biz_id"),
                    new EnrollmentTokenRequest("t", 2L, 0L), List.of("ttl_hours"),
                    new EnrollmentTokenRequest("t", 2L, 87_601L), List.of("ttl_hours"),
                    new EnrollmentTokenRequest(null, null, -1L), List.of("name", "bk_biz_id", "ttl_hours"),
                    new EnrollmentTokenRequest("t", 9L, null), List.of("bk_biz_id"));
            invalid.forEach((request, fields) -> assertThatThrownBy(() -> store.create(ADMIN, request)).as(request.toString())
                    .isInstanceOfSatisfying(DomainException.class, e -> {
                        assertThat(e.kind()).isEqualTo(DomainException.Kind.INVALID);
                        assertThat(e.errors()).extracting(FieldError::field).containsExactlyElementsOf(fields);
                    }));
            assertThat(kindOf(() -> store.create(SHOP_ONLY, new EnrollmentTokenRequest("t", 3L, null))))
                    .isEqualTo(DomainException.Kind.FORBIDDEN);
            assertThat(store.list(ADMIN)).isEmpty();
            assertThat(store.create(ADMIN, new EnrollmentTokenRequest("t", 2L, 87_600L)).info().expiresAt()).isNotNull();
        });
    }

    @OnBothDatabases
    void onlyKnownLiveTokensAreRedeemedAndEachUseIsCounted(String kind) {
        TestDatabases.on(kind, db -> {
            businesses(db);
            ManualClock clock = new ManualClock(Instant.parse("2026-11-25T10:00:00Z").toEpochMilli());
            EnrollmentTokenStore store = new EnrollmentTokenStore(db.jdbi(), clock);
            String live = store.create(ADMIN, new EnrollmentTokenRequest("live", 2L, null)).token();
            CreatedEnrollmentToken expired = store.create(ADMIN, new EnrollmentTokenRequest("expired", 3L, 1L));
            CreatedEnrollmentToken revoked = store.create(ADMIN, new EnrollmentTokenRequest("revoked", 3L, null));
            store.revoke(ADMIN, revoked.info().id());
            clock.advance(Duration.ofHours(1).plusSeconds(1)); // past the 1-hour token's expiry

            db.jdbi().useTransaction(h -> {
                assertThat(store.redeem(h, live, "web-1")).contains(2L);
                assertThat(store.redeem(h, live, "web-1")).contains(2L);
                for (Object refused : new Object[] {null, 42, "", "drv_enroll_unknown", live.substring(4), live + "x",
                        EnrollmentTokenStore.PREFIX + "a".repeat(200), expired.token(), revoked.token()}) {
                    assertThat(store.redeem(h, refused, "web-1")).as(String.valueOf(refused)).isEmpty();
                }
            });
            assertThat(store.list(ADMIN)).extracting(EnrollmentTokenInfo::name, EnrollmentTokenInfo::uses).containsExactly(
                    tuple("live", 2L), tuple("expired", 0L),
                    tuple("revoked", 0L));
        });
    }

    @OnBothDatabases
    void aTokenLivesADayUnlessToldAndAdmitsOnlyItsNumberOfAgentsWithMatchingIds(String kind) {
        TestDatabases.on(kind, db -> {
            businesses(db);
            ManualClock clock = new ManualClock(Instant.parse("2026-11-27T10:00:00Z").toEpochMilli());
            EnrollmentTokenStore store = new EnrollmentTokenStore(db.jdbi(), clock);
            CreatedEnrollmentToken racks = store.create(ADMIN, new EnrollmentTokenRequest("racks", 2L, null, 2L, "web-*"));
            assertThat(racks.info().expiresAt().toInstant()).as("a day by default").isEqualTo(Instant.parse("2026-11-28T10:00:00Z"));
            assertThat(racks.info().maxUses()).isEqualTo(2L);
            assertThat(racks.info().idGlob()).isEqualTo("web-*");
            db.jdbi().useTransaction(h -> {
                assertThat(store.redeem(h, racks.token(), "db-1")).as("an id its glob does not admit").isEmpty();
                assertThat(store.redeem(h, racks.token(), "web-1")).contains(2L);
                assertThat(store.redeem(h, racks.token(), "web-2")).contains(2L);
                assertThat(store.redeem(h, racks.token(), "web-3")).as("used up").isEmpty();
            });
            assertThat(store.list(ADMIN)).extracting(EnrollmentTokenInfo::uses).containsExactly(2L);
            CreatedEnrollmentToken day = store.create(ADMIN, new EnrollmentTokenRequest("day", 2L, null));
            clock.advance(Duration.ofHours(24));
            db.jdbi().useTransaction(h -> assertThat(store.redeem(h, day.token(), "web-9")).as("after a day").isEmpty());
            for (EnrollmentTokenRequest bad : List.of(new EnrollmentTokenRequest("t", 2L, null, 0L, null),
                    new EnrollmentTokenRequest("t", 2L, null, null, " "), new EnrollmentTokenRequest("t", 2L, null, null, "web\u0000*"))) {
                assertThat(kindOf(() -> store.create(ADMIN, bad))).as(bad.toString()).isEqualTo(DomainException.Kind.INVALID);
            }
        });
    }

    @OnBothDatabases
    void aCheckFindsOnlyTokensThatWouldAdmitAnAgentNowAndCountsNoUse(String kind) {
        TestDatabases.on(kind, db -> {
            businesses(db);
            ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z").toEpochMilli());
            EnrollmentTokenStore store = new EnrollmentTokenStore(db.jdbi(), clock);
            CreatedEnrollmentToken once = store.create(ADMIN, new EnrollmentTokenRequest("once", 2L, 2L, 1L, "web-*"));
            CreatedEnrollmentToken revoked = store.create(ADMIN, new EnrollmentTokenRequest("revoked", 3L, null));
            store.revoke(ADMIN, revoked.info().id());

            for (int i = 0; i < 3; i++) {
                assertThat(store.check(once.token())).map(EnrollmentTokenInfo::name).contains("once");
            }
            assertThat(store.list(ADMIN).getFirst().uses()).as("checking uses nothing").isZero();
            for (String refused : new String[] {null, "", revoked.token(), once.token() + "x", "drv_enroll_unknown",
                    EnrollmentTokenStore.PREFIX + "a".repeat(200)}) {
                assertThat(store.check(refused)).as(String.valueOf(refused)).isEmpty();
            }
            db.jdbi().useTransaction(h -> assertThat(store.redeem(h, once.token(), "web-1")).contains(2L));
            assertThat(store.check(once.token())).as("used up").isEmpty();
            CreatedEnrollmentToken shortLived = store.create(ADMIN, new EnrollmentTokenRequest("short", 2L, 1L));
            assertThat(store.check(shortLived.token())).isPresent();
            clock.advance(Duration.ofHours(1));
            assertThat(store.check(shortLived.token())).as("expired").isEmpty();
        });
    }
}

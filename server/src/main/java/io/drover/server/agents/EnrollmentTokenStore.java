package io.drover.server.agents;

import io.drover.core.Hashing;
import io.drover.model.agents.CreatedEnrollmentToken;
import io.drover.model.agents.EnrollmentTokenInfo;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.api.Problem.FieldError;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Enrollment tokens: an agent started with one is accepted without an operator and its host is placed in the
 * token's business. Stored as SHA-256 like API tokens; a token expires (24 h unless asked otherwise), may be revoked,
 * may admit a limited number of agents, and only agent ids that match its glob.
 */
public final class EnrollmentTokenStore {
    static final String PREFIX = "drv_enroll_";

    private final Jdbi jdbi;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    public EnrollmentTokenStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public CreatedEnrollmentToken create(Principal p, EnrollmentTokenRequest request) {
        List<FieldError> errors = new ArrayList<>();
        if (request.name() == null || request.name().isBlank()) {
            errors.add(new FieldError("name", "is required"));
        } else if (request.name().length() > 128) {
            errors.add(new FieldError("name", "is longer than 128 characters"));
        }
        if (request.bkBizId() == null) {
            errors.add(new FieldError("bk_biz_id", "is required: the business new agents' hosts are placed in"));
        }
        if (request.ttlHours() != null && (request.ttlHours() < 1 || request.ttlHours() > 24 * 3650)) {
            errors.add(new FieldError("ttl_hours", "must be 1 to 87600 hours"));
        }
        if (request.maxUses() != null && (request.maxUses() < 1 || request.maxUses() > 10_000_000)) {
            errors.add(new FieldError("max_uses", "must be 1 to 10000000 agents (leave it out for any number)"));
        }
        if (request.idGlob() != null && (request.idGlob().isBlank() || request.idGlob().length() > 255
                || request.idGlob().chars().anyMatch(c -> c < 0x21 || c > 0x7e))) {
            errors.add(new FieldError("id_glob", "must be 1 to 255 printable ASCII characters, e.g. web-*"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        p.requireBiz(request.bkBizId());
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        OffsetDateTime now = OffsetDateTime.now(clock);
        OffsetDateTime expires = now.plusHours(request.ttlHours() == null ? EnrollmentTokenRequest.DEFAULT_TTL_HOURS : request.ttlHours());
        long id = jdbi.inTransaction(h -> {
            if (h.createQuery("SELECT COUNT(*) FROM business WHERE bk_biz_id = :biz").bind("biz", request.bkBizId())
                    .mapTo(Long.class).one() == 0) {
                throw DomainException.invalid("bk_biz_id", "business " + request.bkBizId() + " does not exist");
            }
            return h.createUpdate("""
                            INSERT INTO enrollment_token (name, token_hash, bk_biz_id, created_at, expires_at, max_uses, id_glob)
                            VALUES (:name, :hash, :biz, :now, :expires, :maxUses, :idGlob)""")
                    .bind("name", request.name().strip()).bind("hash", Hashing.sha256(token)).bind("biz", request.bkBizId())
                    .bind("now", now).bind("expires", expires).bind("maxUses", request.maxUses()).bind("idGlob", request.idGlob())
                    .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one();
        });
        return new CreatedEnrollmentToken(get(id), token);
    }

    public List<EnrollmentTokenInfo> list(Principal p) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM enrollment_token ORDER BY id").map((rs, ctx) -> info(rs))
                .list()).stream().filter(t -> p.mayTouch(t.bkBizId())).toList();
    }

    public EnrollmentTokenInfo revoke(Principal p, long id) {
        EnrollmentTokenInfo before = get(id);
        if (!p.covers(before.bkBizId())) {
            throw DomainException.notFound("enrollment token", id); // another business's token is as missing
        }
        jdbi.useHandle(h -> h.createUpdate("UPDATE enrollment_token SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL")
                .bind("now", OffsetDateTime.now(clock)).bind("id", id).execute());
        return get(id);
    }

    private EnrollmentTokenInfo get(long id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM enrollment_token WHERE id = :id").bind("id", id)
                .map((rs, ctx) -> info(rs)).findOne()).orElseThrow(() -> DomainException.notFound("enrollment token", id));
    }

    /**
     * A presented token that would admit an agent now (known, not expired, not revoked, not used up), without counting a
     * use: an installer downloading the agent it will enroll shows it first, and a single-use token stays usable for the
     * agent's sign-in. The id glob is not checked: there is no agent id yet.
     */
    public Optional<EnrollmentTokenInfo> check(String presented) {
        if (presented == null || !presented.startsWith(PREFIX) || presented.length() > 200) {
            return Optional.empty();
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM enrollment_token WHERE token_hash = :hash")
                        .bind("hash", Hashing.sha256(presented)).map((rs, ctx) -> info(rs)).findOne())
                .filter(t -> t.revokedAt() == null)
                .filter(t -> t.expiresAt() == null || t.expiresAt().isAfter(now))
                .filter(t -> t.maxUses() == null || t.uses() < t.maxUses());
    }

    /**
     * The business of a presented token that is known, not expired, not revoked, not used up and whose id glob admits
     * {@code agentId}; counts the use (at most its limit, also when two sign-ins race).
     */
    public Optional<Long> redeem(Handle h, Object presented, String agentId) {
        if (!(presented instanceof String token) || !token.startsWith(PREFIX) || token.length() > 200) {
            return Optional.empty();
        }
        Optional<EnrollmentTokenInfo> found = h.createQuery("SELECT * FROM enrollment_token WHERE token_hash = :hash")
                .bind("hash", Hashing.sha256(token)).map((rs, ctx) -> info(rs)).findOne();
        OffsetDateTime now = OffsetDateTime.now(clock);
        Optional<EnrollmentTokenInfo> valid = found.filter(t -> t.revokedAt() == null)
                .filter(t -> t.expiresAt() == null || t.expiresAt().isAfter(now))
                .filter(t -> t.idGlob() == null || io.drover.core.match.Glob.compile(t.idGlob()).matches(agentId))
                .filter(t -> h.createUpdate("UPDATE enrollment_token SET uses = uses + 1 WHERE id = :id"
                                + " AND (max_uses IS NULL OR uses < max_uses)")
                        .bind("id", t.id()).execute() == 1);
        return valid.map(EnrollmentTokenInfo::bkBizId);
    }

    private static EnrollmentTokenInfo info(ResultSet rs) throws SQLException {
        return new EnrollmentTokenInfo(rs.getLong("id"), rs.getString("name"), rs.getLong("bk_biz_id"), rs.getLong("uses"),
                SqlTime.read(rs, "created_at"), SqlTime.read(rs, "expires_at"),
                SqlTime.read(rs, "revoked_at"), Sql.nullableLong(rs, "max_uses"), rs.getString("id_glob"));
    }
}

package io.drover.server.auth;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.Hashing;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.auth.CreatedToken;
import io.drover.model.auth.Role;
import io.drover.model.auth.TokenInfo;
import io.drover.model.auth.TokenRequest;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import io.drover.server.store.SqlTime;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * API tokens. A token is {@code drv_} + 32 random bytes; only its SHA-256 is stored (a token carries 256 bits
 * of entropy, so a slow password hash adds nothing).
 */
public final class TokenStore {
    private static final String PREFIX = "drv_";
    private static final TypeReference<List<Long>> LONGS = new TypeReference<>() {
    };
    private static final Duration LAST_USED_RESOLUTION = Duration.ofMinutes(1);

    private final Jdbi jdbi;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<Long, OffsetDateTime> lastUsedWritten = new ConcurrentHashMap<>();

    public TokenStore(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public boolean isEmpty() {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM api_token").mapTo(Long.class).one()) == 0;
    }

    public CreatedToken create(TokenRequest request) {
        List<FieldError> errors = new ArrayList<>();
        if (request.name() == null || request.name().isBlank()) {
            errors.add(new FieldError("name", "is required"));
        } else if (request.name().length() > 128) {
            errors.add(new FieldError("name", "is longer than 128 characters"));
        }
        if (request.role() == null) {
            errors.add(new FieldError("role", "is required (admin, operator, viewer or alerts)"));
        }
        if (request.ttlHours() != null && (request.ttlHours() < 1 || request.ttlHours() > TokenRequest.MAX_TTL_HOURS)) {
            errors.add(new FieldError("ttl_hours", "must be between 1 and " + TokenRequest.MAX_TTL_HOURS
                    + " hours (leave it out for a token that does not expire)"));
        }
        List<Long> bizIds = request.bkBizIds() == null ? List.of() : request.bkBizIds();
        for (int i = 0; i < bizIds.size(); i++) {
            if (bizIds.get(i) == null || bizIds.get(i) <= 0) {
                errors.add(new FieldError("bk_biz_ids[" + i + "]", "must be a positive id"));
            }
        }
        if (request.role() == Role.ADMIN && !bizIds.isEmpty()) {
            errors.add(new FieldError("bk_biz_ids", "an admin token covers every business; leave it empty"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        OffsetDateTime now = OffsetDateTime.now(clock);
        OffsetDateTime expires = request.ttlHours() == null ? null : now.plusHours(request.ttlHours());
        List<Long> sorted = bizIds.stream().distinct().sorted().toList();
        long id = jdbi.withHandle(h -> h.createUpdate("""
                        INSERT INTO api_token (name, token_hash, role, biz_ids, created_at, expires_at)
                        VALUES (:name, :hash, :role, :biz, :now, :expires)""")
                .bind("name", request.name().strip())
                .bind("hash", Hashing.sha256(token))
                .bind("role", request.role().wireName())
                .bind("biz", Sql.toJson(sorted))
                .bind("now", now)
                .bind("expires", expires)
                .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
        return new CreatedToken(new TokenInfo(id, request.name().strip(), request.role(), sorted, now, null, null, expires), token);
    }

    public List<TokenInfo> list() {
        return jdbi.withHandle(h -> h.createQuery("SELECT * FROM api_token ORDER BY id")
                .map((rs, ctx) -> info(rs)).list());
    }

    /** Revokes a token; revoking twice is allowed and changes nothing the second time. */
    public TokenInfo revoke(long id) {
        return jdbi.inTransaction(h -> {
            int changed = h.createUpdate("UPDATE api_token SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL")
                    .bind("now", OffsetDateTime.now(clock)).bind("id", id).execute();
            Optional<TokenInfo> info = h.createQuery("SELECT * FROM api_token WHERE id = :id").bind("id", id)
                    .map((rs, ctx) -> info(rs)).findOne();
            if (info.isEmpty()) {
                throw DomainException.notFound("token", id);
            }
            if (changed == 0 && info.get().revokedAt() == null) {
                throw new IllegalStateException("token " + id + " could not be revoked");
            }
            return info.get();
        });
    }

    /** The principal of a presented token, or empty when it is unknown, revoked or expired. */
    public Optional<Principal> authenticate(String token) {
        if (token == null || !token.startsWith(PREFIX) || token.length() > 200) {
            return Optional.empty();
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        Optional<TokenInfo> found = jdbi.withHandle(h -> h.createQuery(
                        "SELECT * FROM api_token WHERE token_hash = :hash AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > :now)")
                .bind("hash", Hashing.sha256(token)).bind("now", now).map((rs, ctx) -> info(rs)).findOne());
        found.ifPresent(this::touch);
        return found.map(t -> new Principal(t.id(), t.name(), t.role(), new HashSet<>(t.bkBizIds())));
    }

    private void touch(TokenInfo token) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        OffsetDateTime written = lastUsedWritten.get(token.id());
        if (written == null || written.plus(LAST_USED_RESOLUTION).isBefore(now)) {
            lastUsedWritten.put(token.id(), now);
            jdbi.useHandle(h -> h.createUpdate("UPDATE api_token SET last_used_at = :now WHERE id = :id")
                    .bind("now", now).bind("id", token.id()).execute());
        }
    }

    private static TokenInfo info(ResultSet rs) throws SQLException {
        return new TokenInfo(rs.getLong("id"), rs.getString("name"), Role.parse(rs.getString("role")),
                Sql.fromJson(rs.getString("biz_ids"), LONGS), SqlTime.read(rs, "created_at"),
                SqlTime.read(rs, "last_used_at"), SqlTime.read(rs, "revoked_at"),
                SqlTime.read(rs, "expires_at"));
    }
}

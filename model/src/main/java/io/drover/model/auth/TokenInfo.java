package io.drover.model.auth;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * A token as the API shows it: never the secret itself. {@code bkBizIds} empty means every business; {@code expiresAt}
 * null means it does not expire.
 */
public record TokenInfo(long id, String name, Role role, List<Long> bkBizIds, OffsetDateTime createdAt,
                        OffsetDateTime lastUsedAt, OffsetDateTime revokedAt, OffsetDateTime expiresAt) {
}

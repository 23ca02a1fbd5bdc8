package io.drover.model.agents;

import java.time.OffsetDateTime;

/** An enrollment token without its secret; {@code maxUses} and {@code idGlob} null: no such limit. */
public record EnrollmentTokenInfo(long id, String name, long bkBizId, long uses, OffsetDateTime createdAt,
                                  OffsetDateTime expiresAt, OffsetDateTime revokedAt, Long maxUses, String idGlob) {
}

package io.drover.model.agents;

/**
 * A new enrollment token: agents presenting it are accepted and placed in the business. It lives {@code ttlHours}
 * (default {@link #DEFAULT_TTL_HOURS}), admits at most {@code maxUses} agents (null: any number) and only agent ids
 * matching {@code idGlob} (null: any).
 */
public record EnrollmentTokenRequest(String name, Long bkBizId, Long ttlHours, Long maxUses, String idGlob) {
    public static final long DEFAULT_TTL_HOURS = 24;

    public EnrollmentTokenRequest(String name, Long bkBizId, Long ttlHours) {
        this(name, bkBizId, ttlHours, null, null);
    }
}

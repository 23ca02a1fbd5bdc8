package io.drover.model.auth;

import java.util.List;

/** Request to create a token; {@code ttlHours} null: it does not expire. */
public record TokenRequest(String name, Role role, List<Long> bkBizIds, Integer ttlHours) {
    /** The longest lifetime a token may be given: ten years. */
    public static final int MAX_TTL_HOURS = 87_600;

    public TokenRequest(String name, Role role, List<Long> bkBizIds) {
        this(name, role, bkBizIds, null);
    }
}

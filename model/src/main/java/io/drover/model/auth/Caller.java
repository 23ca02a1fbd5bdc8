package io.drover.model.auth;

import java.util.List;

/** Who a token is, as the caller itself may see: its name, role and businesses ({@code bkBizIds} empty = every business). */
public record Caller(long tokenId, String name, Role role, List<Long> bkBizIds) {
}

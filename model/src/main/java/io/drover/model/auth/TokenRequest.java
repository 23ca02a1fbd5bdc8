package io.drover.model.auth;

import java.util.List;

/** Request to create a token. */
public record TokenRequest(String name, Role role, List<Long> bkBizIds) {
}

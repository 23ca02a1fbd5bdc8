package io.drover.model.agents;

/** A new enrollment token: agents presenting it are accepted and placed in the business; optional lifetime. */
public record EnrollmentTokenRequest(String name, Long bkBizId, Long ttlHours) {
}

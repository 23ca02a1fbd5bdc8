package io.drover.model.agents;

/** A created enrollment token: the secret is shown once, here, and stored only as its SHA-256. */
public record CreatedEnrollmentToken(EnrollmentTokenInfo info, String token) {
}

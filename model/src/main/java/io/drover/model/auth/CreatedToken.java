package io.drover.model.auth;

/** A new token: the secret is shown once, here, and stored only as a hash. */
public record CreatedToken(TokenInfo info, String token) {
}

package io.drover.server.http;

import io.drover.server.auth.Principal;
import java.util.Optional;
import java.util.function.Function;

/**
 * A credential a route takes besides API tokens, sent as {@code Authorization: <scheme> <secret>}: the feature that
 * owns it checks the secret and answers the caller it stands for. A caller let in this way is not held to the route's
 * role: the credential itself is the permission, and only the routes that name it take it (an installer's enrollment
 * token downloads agent packages and does nothing else). A refused one counts as a failed authentication.
 *
 * @param scheme  the word before the secret, matched without regard to case ({@code Enroll})
 * @param what    what the secret is, for messages and the API description ({@code enrollment token})
 * @param check   the caller the secret stands for, or empty when it stands for none now
 */
public record OtherCredential(String scheme, String what, Function<String, Optional<Principal>> check) {
    public OtherCredential {
        if (scheme.equalsIgnoreCase("Bearer") || !scheme.matches("[A-Za-z]+")) {
            throw new IllegalArgumentException("'" + scheme + "' cannot be another credential's scheme");
        }
    }

    /** Whether an Authorization header is of this scheme. */
    boolean presentedIn(String header) {
        return header != null && header.regionMatches(true, 0, scheme + " ", 0, scheme.length() + 1);
    }
}

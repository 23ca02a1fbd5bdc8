package io.drover.server.cluster;

import java.nio.file.Path;

/**
 * What this server proves itself with to the cluster's NATS, as files (the secrets are read when it connects, never
 * kept in settings or logs), and the TLS files: a user with a password, a token, an NKey seed, a client certificate,
 * or any of them together as NATS's configuration asks. {@code urlHasUser}: the cluster's URL holds a user (and
 * perhaps a password) of its own. {@code insecure}: none of them is required.
 */
public record NatsCredentials(String user, Path passwordFile, Path tokenFile, Path nkeyFile, Path tlsCa, Path tlsCert,
                              Path tlsKey, boolean urlHasUser, boolean insecure) {

    /** The kinds of proof given, for operators ({@code GET /api/v1/cluster}): "user", "token", "nkey", "certificate", or "none". */
    public String kinds() {
        java.util.List<String> kinds = new java.util.ArrayList<>();
        if (user != null || urlHasUser) {
            kinds.add("user");
        }
        if (tokenFile != null) {
            kinds.add("token");
        }
        if (nkeyFile != null) {
            kinds.add("nkey");
        }
        if (tlsCert != null) {
            kinds.add("certificate");
        }
        return kinds.isEmpty() ? "none" : String.join(",", kinds);
    }

    /** Whether NATS is given no proof at all (allowed only with cluster-insecure). */
    public boolean none() {
        return kinds().equals("none");
    }
}

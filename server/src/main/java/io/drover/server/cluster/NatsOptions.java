package io.drover.server.cluster;

import io.nats.client.AuthHandler;
import io.nats.client.NKey;
import io.nats.client.Options;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/** The NATS client's options for a cluster's URL and credentials: the secrets read from their files now. */
final class NatsOptions {
    private NatsOptions() {
    }

    static Options.Builder of(String url, NatsCredentials credentials) {
        Options.Builder options = Options.builder().servers(url.split(","));
        if (credentials.user() != null) {
            options.userInfo(credentials.user().toCharArray(), secret(credentials.passwordFile()));
        }
        if (credentials.tokenFile() != null) {
            options.token(secret(credentials.tokenFile()));
        }
        if (credentials.nkeyFile() != null) {
            options.authHandler(nkey(credentials.nkeyFile()));
        }
        boolean tls = url.contains("tls://") || credentials.tlsCa() != null || credentials.tlsCert() != null;
        if (tls) {
            // the certificate is checked against the host name of the URL, which the client would otherwise replace
            // with the addresses it resolves to
            options.sslContext(ClientTls.context(credentials.tlsCa(), credentials.tlsCert(), credentials.tlsKey()))
                    .noResolveHostnames();
        }
        return options;
    }

    /** The first line of a secret file (a trailing newline is not part of the secret). */
    static char[] secret(Path file) {
        try {
            String text = Files.readString(file).strip();
            if (text.isEmpty() || text.contains("\n")) {
                throw new IllegalStateException(file + " must hold one line: the secret");
            }
            return text.toCharArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Signs NATS's challenge with the NKey seed of the file (its user's public key is in NATS's configuration). */
    static AuthHandler nkey(Path file) {
        char[] seed = secret(file);
        NKey key;
        try {
            key = NKey.fromSeed(seed);
            key.getPublicKey();
        } catch (RuntimeException | GeneralSecurityException | IOException e) {
            throw new IllegalStateException(file + " does not hold an NKey seed (SU…, as nk -gen user writes it)");
        }
        return new AuthHandler() {
            @Override
            public byte[] sign(byte[] nonce) {
                try {
                    return key.sign(nonce);
                } catch (GeneralSecurityException | IOException e) {
                    throw new IllegalStateException("cannot sign NATS's challenge with the NKey", e);
                }
            }

            @Override
            public char[] getID() {
                try {
                    return key.getPublicKey();
                } catch (GeneralSecurityException | IOException e) {
                    throw new IllegalStateException("cannot read the NKey's public key", e);
                }
            }

            @Override
            public char[] getJWT() {
                return null;
            }
        };
    }
}

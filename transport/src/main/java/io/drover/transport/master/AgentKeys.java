package io.drover.transport.master;

import io.drover.transport.crypto.Crypticle;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Each Drover agent's own session key, derived rather than stored: HKDF-SHA256 (RFC 5869) with the master's private
 * key as the secret, the current shared session key as the salt and the agent's id as the info. Only a holder of the
 * master key can make one; every server of a cluster (same {@code master.pem}, same shared session key) derives the
 * same key for an agent, so an agent that moves between them keeps its session; a rotation of the shared key (after
 * a key is rejected or deleted, or a restart of a single server) changes every agent's key, so a revoked agent is cut
 * off as with the shared key. Derived keys are cached per shared key, bounded by {@link #MAX_CACHED}.
 */
final class AgentKeys {
    static final int MAX_CACHED = 200_000;
    private static final int KEY_BYTES = 24 + 32;

    private final byte[] masterSecret;
    private final SessionKey session;
    private volatile Generation generation;

    /** The derived keys of one shared key. */
    private record Generation(Crypticle shared, byte[] prk, ConcurrentHashMap<String, Crypticle> keys) {
    }

    AgentKeys(RSAPrivateCrtKey masterKey, SessionKey session) {
        this.masterSecret = sha256(concat("drover agent keys\0".getBytes(StandardCharsets.US_ASCII), masterKey.getEncoded()));
        this.session = session;
    }

    /** The key of agent {@code id} under the current shared key. */
    Crypticle of(String id) {
        Generation g = current();
        Crypticle key = g.keys.get(id);
        if (key == null) {
            if (g.keys.size() >= MAX_CACHED) {
                g.keys.clear();
            }
            key = new Crypticle(derive(g.prk, id));
            g.keys.put(id, key);
        }
        return key;
    }

    private Generation current() {
        Crypticle shared = session.current();
        Generation g = generation;
        if (g == null || g.shared != shared) {
            g = new Generation(shared, hmac(shared.keyString().getBytes(StandardCharsets.US_ASCII), masterSecret),
                    new ConcurrentHashMap<>());
            generation = g;
        }
        return g;
    }

    /** HKDF-Expand(prk, "drover agent key\0" ‖ id, 56 bytes) as a Crypticle key string. */
    static String derive(byte[] prk, String id) {
        byte[] info = concat("drover agent key\0".getBytes(StandardCharsets.US_ASCII), id.getBytes(StandardCharsets.UTF_8));
        byte[] t1 = hmac(prk, concat(info, new byte[] {1}));
        byte[] t2 = hmac(prk, concat(t1, concat(info, new byte[] {2})));
        return Base64.getEncoder().encodeToString(Arrays.copyOf(concat(t1, t2), KEY_BYTES));
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

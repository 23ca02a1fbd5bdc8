package io.drover.transport.crypto;

import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Salt's session cipher: key string = base64(24-byte AES-192 key ‖ 32-byte HMAC-SHA256 key); a message is
 * {@code iv ‖ AES-CBC(PKCS7("pickle::" ‖ [nonce] ‖ msgpack(obj))) ‖ HMAC(iv ‖ ct)}.
 */
public final class Crypticle {
    public static final String PREFIX = "pickle::";
    private static final int AES_KEY = 24;
    private static final int HMAC_KEY = 32;
    private static final int BLOCK = 16;
    private static final int MAC = 32;

    private final SecretKeySpec aesKey;
    private final SecretKeySpec hmacKey;
    private final String keyString;
    /**
     * Ciphers and keyed MACs kept for reuse: looking a JCE algorithm up and keying an HMAC cost more than
     * encrypting a small message, and a master or a fleet load process does that thousands of times a second.
     */
    private final ConcurrentLinkedQueue<Cipher> ciphers = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Mac> macs = new ConcurrentLinkedQueue<>();

    public Crypticle(String keyString) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(keyString.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("session key is not base64");
        }
        if (key.length != AES_KEY + HMAC_KEY) {
            throw new IllegalArgumentException("session key must be " + (AES_KEY + HMAC_KEY) + " bytes, not " + key.length);
        }
        this.aesKey = new SecretKeySpec(Arrays.copyOfRange(key, 0, AES_KEY), "AES");
        this.hmacKey = new SecretKeySpec(Arrays.copyOfRange(key, AES_KEY, key.length), "HmacSHA256");
        this.keyString = keyString.strip();
    }

    /** A fresh random key string, as Salt's {@code Crypticle.generate_key_string()}. */
    public static String generateKeyString() {
        byte[] key = new byte[AES_KEY + HMAC_KEY];
        Randomness.nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    public String keyString() {
        return keyString;
    }

    public byte[] encrypt(byte[] plain) {
        return encrypt(plain, randomIv());
    }

    /** Encrypts with a given IV: for golden-vector tests; production code uses a random IV. */
    byte[] encrypt(byte[] plain, byte[] iv) {
        Cipher cipher = cipher();
        try {
            cipher.init(Cipher.ENCRYPT_MODE, aesKey, new IvParameterSpec(iv));
            byte[] ct = cipher.doFinal(plain);
            ciphers.offer(cipher);
            byte[] out = new byte[BLOCK + ct.length + MAC];
            System.arraycopy(iv, 0, out, 0, BLOCK);
            System.arraycopy(ct, 0, out, BLOCK, ct.length);
            System.arraycopy(mac(out, BLOCK + ct.length), 0, out, BLOCK + ct.length, MAC);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Decrypts after checking the HMAC in constant time; a bad HMAC means the sender used another session key. */
    public byte[] decrypt(byte[] data) {
        if (data == null || data.length < BLOCK + BLOCK + MAC || (data.length - MAC) % BLOCK != 0) {
            throw new InvalidMessageException("ciphertext has the wrong length");
        }
        byte[] expected = mac(data, data.length - MAC);
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(data, data.length - MAC, data.length))) {
            throw new InvalidMessageException("HMAC check failed (session key changed or data tampered)");
        }
        Cipher cipher = cipher();
        try {
            cipher.init(Cipher.DECRYPT_MODE, aesKey, new IvParameterSpec(data, 0, BLOCK));
            byte[] plain = cipher.doFinal(data, BLOCK, data.length - BLOCK - MAC);
            ciphers.offer(cipher);
            return plain;
        } catch (GeneralSecurityException e) {
            throw new InvalidMessageException("cannot decrypt: " + e.getMessage());
        }
    }

    /** {@code encrypt("pickle::" ‖ [nonce] ‖ msgpack(obj))}. */
    public byte[] dumps(Object obj, String nonce) {
        return encrypt(frame(obj, nonce));
    }

    /**
     * The plaintext {@link #dumps} encrypts; a value sent to many keys (a job for many agents) is framed once and
     * given to {@link #encrypt(byte[])} for each.
     */
    public static byte[] frame(Object obj, String nonce) {
        byte[] prefix = (PREFIX + (nonce == null ? "" : nonce)).getBytes(StandardCharsets.UTF_8);
        byte[] body = SaltPack.pack(obj);
        byte[] plain = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, plain, 0, prefix.length);
        System.arraycopy(body, 0, plain, prefix.length, body.length);
        return plain;
    }

    /** Decrypts and unpacks; with {@code nonce} given, the payload must carry exactly that nonce. */
    public Object loads(byte[] data, String nonce) {
        byte[] plain = decrypt(data);
        byte[] prefix = PREFIX.getBytes(StandardCharsets.UTF_8);
        if (plain.length < prefix.length || !Arrays.equals(plain, 0, prefix.length, prefix, 0, prefix.length)) {
            throw new InvalidMessageException("payload does not start with " + PREFIX);
        }
        int at = prefix.length;
        if (nonce != null) {
            byte[] n = nonce.getBytes(StandardCharsets.UTF_8);
            if (plain.length < at + n.length || !Arrays.equals(plain, at, at + n.length, n, 0, n.length)) {
                throw new InvalidMessageException("nonce mismatch (a replayed or misrouted reply)");
            }
            at += n.length;
        }
        try {
            return SaltPack.unpack(Arrays.copyOfRange(plain, at, plain.length));
        } catch (MalformedFrameException e) {
            throw new InvalidMessageException("decrypted payload is not msgpack: " + e.getMessage());
        }
    }

    /** A cipher from the pool or a new one; a cipher that failed is not returned to the pool. */
    private Cipher cipher() {
        Cipher cipher = ciphers.poll();
        if (cipher != null) {
            return cipher;
        }
        try {
            return Cipher.getInstance("AES/CBC/PKCS5Padding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] mac(byte[] data, int length) {
        Mac mac = macs.poll();
        try {
            if (mac == null) {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(hmacKey);
            }
            mac.update(data, 0, length);
            byte[] result = mac.doFinal();
            macs.offer(mac);
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] randomIv() {
        byte[] iv = new byte[BLOCK];
        Randomness.nextBytes(iv);
        return iv;
    }
}

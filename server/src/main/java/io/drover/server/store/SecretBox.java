package io.drover.server.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts values kept in the database (addon parameters) with AES-256-GCM. The key is
 * {@code $DROVER_SECRET_KEY} (base64 of 32 bytes) or {@code <data>/secret.key}, created with mode 0600 on first
 * use. Losing the key loses the stored parameters; back it up with the database.
 */
public final class SecretBox {
    public static final String KEY_ENV = "DROVER_SECRET_KEY";
    private static final String PREFIX = "v1:";
    private static final int NONCE = 12;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    private SecretBox(byte[] key) {
        if (key.length != 32) {
            throw new IllegalArgumentException("the secret key must be 32 bytes (base64 of 32 random bytes); it is "
                    + key.length);
        }
        this.key = new SecretKeySpec(key, "AES");
    }

    public static SecretBox of(byte[] key) {
        return new SecretBox(key);
    }

    /** The key from the environment, else from {@code <dataDir>/secret.key}, creating it when absent. */
    public static SecretBox loadOrCreate(Path dataDir, String fromEnv) {
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new SecretBox(Base64.getDecoder().decode(fromEnv.strip()));
        }
        Path file = dataDir.resolve("secret.key");
        try {
            if (!Files.exists(file)) {
                byte[] fresh = new byte[32];
                new SecureRandom().nextBytes(fresh);
                Path temp = dataDir.resolve("secret.key.tmp");
                Files.deleteIfExists(temp);
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(temp, Base64.getEncoder().encodeToString(fresh) + "\n");
                try {
                    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException raced) {
                    Files.deleteIfExists(temp);
                }
            }
            return new SecretBox(Base64.getDecoder().decode(Files.readString(file).strip()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the secret key " + file, e);
        }
    }

    /**
     * A key for another use, derived from this one under a label (HMAC-SHA256 of the label): whoever holds the secret
     * key holds it, and it tells nothing of the secret key or of keys under other labels.
     */
    public byte[] derive(String label) {
        try {
            javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(key.getEncoded(), "HmacSHA256"));
            return hmac.doFinal(label.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    public String seal(String plain) {
        try {
            byte[] nonce = new byte[NONCE];
            random.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce));
            byte[] sealed = cipher.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[NONCE + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE);
            System.arraycopy(sealed, 0, out, NONCE, sealed.length);
            return PREFIX + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable", e);
        }
    }

    public String open(String sealed) {
        if (!sealed.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a sealed value");
        }
        byte[] in = Base64.getDecoder().decode(sealed.substring(PREFIX.length()));
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, in, 0, NONCE));
            return new String(cipher.doFinal(in, NONCE, in.length - NONCE), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a stored secret cannot be decrypted: the secret key is not the one it was "
                    + "sealed with (" + KEY_ENV + " or secret.key changed?)", e);
        }
    }
}

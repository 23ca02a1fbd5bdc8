package io.drover.transport.crypto;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import javax.crypto.Cipher;

/**
 * The RSA operations of Salt's handshake: OAEP-SHA1 (MGF1-SHA1) encryption of the session key, PKCS#1 v1.5
 * SHA-1 signatures on clear replies and publishes, and OpenSSL's X9.31 "private encrypt" for the proof of the
 * session key and the minion token. X9.31 has no JCA padding, so it is done with BigInteger.
 */
public final class Rsa {
    private Rsa() {
    }

    public static byte[] encryptOaep(RSAPublicKey key, byte[] plain) {
        try {
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.ENCRYPT_MODE, key);
            return cipher.doFinal(plain);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("OAEP encryption failed: " + e.getMessage(), e);
        }
    }

    public static byte[] decryptOaep(RSAPrivateCrtKey key, byte[] data) {
        try {
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.DECRYPT_MODE, key);
            return cipher.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new InvalidMessageException("OAEP decryption failed (wrong key?)");
        }
    }

    public static byte[] signSha1(RSAPrivateCrtKey key, byte[] data) {
        try {
            Signature sig = Signature.getInstance("SHA1withRSA");
            sig.initSign(key);
            sig.update(data);
            return sig.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static boolean verifySha1(RSAPublicKey key, byte[] data, byte[] signature) {
        try {
            Signature sig = Signature.getInstance("SHA1withRSA");
            sig.initVerify(key);
            sig.update(data);
            return sig.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** OpenSSL {@code RSA_private_encrypt(..., RSA_X931_PADDING)}: {@code min(s, n - s)} of the padded message. */
    public static byte[] signX931(RSAPrivateCrtKey key, byte[] message) {
        int k = (key.getModulus().bitLength() + 7) / 8;
        if (message.length > k - 2) {
            throw new IllegalArgumentException("message too long for X9.31 with this key");
        }
        byte[] em = new byte[k];
        int padding = k - message.length - 2;
        if (padding == 0) {
            em[0] = 0x6A;
        } else {
            em[0] = 0x6B;
            Arrays.fill(em, 1, padding, (byte) 0xBB);
            em[padding] = (byte) 0xBA;
        }
        System.arraycopy(message, 0, em, padding + 1, message.length);
        em[k - 1] = (byte) 0xCC;
        BigInteger n = key.getModulus();
        BigInteger s = privateOperation(key, new BigInteger(1, em));
        BigInteger t = n.subtract(s);
        return fixed(s.min(t), k);
    }

    /**
     * {@code m^d mod n} by the Chinese remainder theorem (two half-size exponentiations, about three times faster than
     * one with {@code d}: the master signs every sign-in), blinded with a random {@code r} so that its time does not
     * depend on {@code m} alone, and checked with the public exponent before it leaves (a fault in one half would
     * otherwise give the factors away).
     */
    static BigInteger privateOperation(RSAPrivateCrtKey key, BigInteger m) {
        BigInteger n = key.getModulus();
        BigInteger e = key.getPublicExponent();
        byte[] random = new byte[(n.bitLength() - 1) / 8];
        BigInteger r;
        do {
            Randomness.nextBytes(random);
            r = new BigInteger(1, random);
        } while (r.signum() == 0 || !r.gcd(n).equals(BigInteger.ONE));
        BigInteger blinded = m.multiply(r.modPow(e, n)).mod(n);
        BigInteger p = key.getPrimeP();
        BigInteger q = key.getPrimeQ();
        BigInteger m1 = blinded.modPow(key.getPrimeExponentP(), p);
        BigInteger m2 = blinded.modPow(key.getPrimeExponentQ(), q);
        BigInteger h = key.getCrtCoefficient().multiply(m1.subtract(m2)).mod(p);
        BigInteger s = m2.add(h.multiply(q)).multiply(r.modInverse(n)).mod(n);
        if (!s.modPow(e, n).equals(m.mod(n))) {
            throw new IllegalStateException("the RSA private operation gave a wrong result");
        }
        return s;
    }

    /** OpenSSL {@code RSA_public_decrypt(..., RSA_X931_PADDING)}: the message, or an exception when the padding is wrong. */
    public static byte[] recoverX931(RSAPublicKey key, byte[] signature) {
        BigInteger n = key.getModulus();
        int k = (n.bitLength() + 7) / 8;
        BigInteger s = new BigInteger(1, signature);
        if (signature.length > k || s.compareTo(n) >= 0) {
            throw new InvalidMessageException("X9.31 signature out of range");
        }
        BigInteger m = s.modPow(key.getPublicExponent(), n);
        if ((m.intValue() & 0xF) != 0xC) {
            m = n.subtract(m);
        }
        byte[] em = fixed(m, k);
        if ((em[k - 1] & 0xff) != 0xCC) {
            throw new InvalidMessageException("X9.31 trailer missing");
        }
        int i;
        if ((em[0] & 0xff) == 0x6A) {
            i = 1;
        } else if ((em[0] & 0xff) == 0x6B) {
            i = 1;
            while (i < k - 1 && (em[i] & 0xff) == 0xBB) {
                i++;
            }
            if (i >= k - 1 || (em[i] & 0xff) != 0xBA) {
                throw new InvalidMessageException("X9.31 padding broken");
            }
            i++;
        } else {
            throw new InvalidMessageException("X9.31 header missing");
        }
        return Arrays.copyOfRange(em, i, k - 1);
    }

    private static byte[] fixed(BigInteger value, int length) {
        byte[] raw = value.toByteArray();
        if (raw.length == length) {
            return raw;
        }
        byte[] out = new byte[length];
        int copy = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - copy, out, length - copy, copy);
        return out;
    }
}

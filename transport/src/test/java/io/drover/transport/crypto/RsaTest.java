package io.drover.transport.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RsaTest {
    @Test
    void theBlindedCrtOperationEqualsTheExponentiationWithTheWholePrivateExponent() {
        Random random = new Random(7);
        for (int keys = 0; keys < 3; keys++) {
            RSAPrivateCrtKey key = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
            BigInteger n = key.getModulus();
            for (BigInteger m : new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, n.subtract(BigInteger.ONE), key.getPrimeP(),
                    key.getPrimeQ()}) {
                assertThat(Rsa.privateOperation(key, m)).isEqualTo(m.modPow(key.getPrivateExponent(), n));
            }
            for (int i = 0; i < 20; i++) {
                BigInteger m = new BigInteger(n.bitLength() - 1, random);
                BigInteger expected = m.modPow(key.getPrivateExponent(), n);
                assertThat(Rsa.privateOperation(key, m)).isEqualTo(expected);
                assertThat(Rsa.privateOperation(key, m)).as("another blinding factor, the same result").isEqualTo(expected);
            }
        }
    }

    @Test
    void anX931SignatureRecoversItsMessageUnderThePublicKey() {
        var pair = RsaKeys.generate();
        byte[] digest = "5b0c0d1e9a4f7e2c3d6b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] signature = Rsa.signX931((RSAPrivateCrtKey) pair.getPrivate(), digest);
        assertThat(Rsa.recoverX931((java.security.interfaces.RSAPublicKey) pair.getPublic(), signature)).isEqualTo(digest);
    }
}

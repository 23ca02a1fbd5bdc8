package io.drover.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretBoxTest {
    @TempDir
    Path dir;

    @Test
    void sealsWithAFreshNonceAndOpensWithTheSameKey() {
        SecretBox box = SecretBox.loadOrCreate(dir, null);
        String a = box.seal("{\"token\":\"hunter22\"}");
        String b = box.seal("{\"token\":\"hunter22\"}");
        assertThat(a).startsWith("v1:").doesNotContain("hunter22").isNotEqualTo(b);
        assertThat(SecretBox.loadOrCreate(dir, null).open(a)).isEqualTo("{\"token\":\"hunter22\"}");
    }

    @Test
    void theKeyFileIsPrivateAndAnotherKeyCannotOpen() throws Exception {
        String sealed = SecretBox.loadOrCreate(dir, null).seal("x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("secret.key"))))
                .isEqualTo("rw-------");
        SecretBox other = SecretBox.of(new byte[32]);
        assertThatThrownBy(() -> other.open(sealed)).hasMessageContaining("the secret key is not the one it was sealed with");
        String tampered = sealed.substring(0, sealed.length() - 4) + (sealed.endsWith("AAA=") ? "BBB=" : "AAA=");
        assertThatThrownBy(() -> SecretBox.loadOrCreate(dir, null).open(tampered)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> SecretBox.of(new byte[16])).hasMessageContaining("must be 32 bytes");
    }

    @Test
    void aDerivedKeyIsTheSameForTheSameSecretKeyAndLabelOnly() throws Exception {
        byte[] secret = new byte[32];
        secret[0] = 7;
        byte[] derived = SecretBox.of(secret).derive("drover cluster messages v1");
        // HMAC-SHA256(key, label), as openssl dgst -sha256 -mac HMAC computes it
        javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256");
        hmac.init(new javax.crypto.spec.SecretKeySpec(secret, "HmacSHA256"));
        assertThat(derived).hasSize(32).isEqualTo(hmac.doFinal("drover cluster messages v1".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isEqualTo(SecretBox.of(secret.clone()).derive("drover cluster messages v1"))
                .isNotEqualTo(SecretBox.of(secret).derive("drover cluster messages v2"))
                .isNotEqualTo(SecretBox.of(new byte[32]).derive("drover cluster messages v1"))
                .isNotEqualTo(secret);
    }
}

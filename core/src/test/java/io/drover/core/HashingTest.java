package io.drover.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The FIPS 180 / RFC 1321 test vectors for "abc", from bytes, text and streams. */
class HashingTest {
    static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    @Test
    void knownVectors() throws Exception {
        assertThat(Hashing.sha256("abc")).isEqualTo(SHA256_ABC);
        assertThat(Hashing.sha256("abc".getBytes(StandardCharsets.UTF_8))).isEqualTo(SHA256_ABC);
        assertThat(Hashing.sha256(new ByteArrayInputStream("abc".getBytes(StandardCharsets.UTF_8)))).isEqualTo(SHA256_ABC);
        assertThat(Hashing.md5("abc")).isEqualTo("900150983cd24fb0d6963f7d28e17f72");
        assertThat(Hashing.md5(new ByteArrayInputStream(new byte[0]))).isEqualTo("d41d8cd98f00b204e9800998ecf8427e");
        assertThat(Hashing.sha1("abc")).isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}

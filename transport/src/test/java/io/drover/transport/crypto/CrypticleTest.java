package io.drover.transport.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The session cipher reuses its JCE objects; these check that reuse never mixes up two messages. */
class CrypticleTest {
    @Test
    void manyThreadsEncryptAndDecryptWithOneSessionKey() throws Exception {
        Crypticle crypticle = new Crypticle(Crypticle.generateKeyString());
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        String text = "thread " + thread + " message " + i + " " + "x".repeat(i % 50);
                        byte[] ct = crypticle.encrypt(text.getBytes(StandardCharsets.UTF_8));
                        assertEquals(text, new String(crypticle.decrypt(ct), StandardCharsets.UTF_8));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }

    @Test
    void aRejectedMessageDoesNotSpoilTheNextOne() {
        Crypticle crypticle = new Crypticle(Crypticle.generateKeyString());
        byte[] ct = crypticle.dumps(Map.of("fun", "test.ping"), "n1");
        byte[] tampered = ct.clone();
        tampered[20] ^= 1;
        assertThrows(InvalidMessageException.class, () -> crypticle.loads(tampered, "n1"));
        byte[] empty = crypticle.encrypt(new byte[0]);
        byte[] otherKey = new Crypticle(Crypticle.generateKeyString()).encrypt(new byte[32]);
        assertThrows(InvalidMessageException.class, () -> crypticle.decrypt(otherKey));
        assertArrayEquals(new byte[0], crypticle.decrypt(empty));
        assertEquals(Map.of("fun", "test.ping"), crypticle.loads(ct, "n1"));
    }
}

package io.drover.server.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileServerTest {
    @TempDir
    Path dir;

    @Test
    void servesAFileInChunksWhoseSha256MatchesTheHash() throws Exception {
        FileServer files = new FileServer(dir.resolve("root"));
        byte[] content = new byte[FileServer.CHUNK * 2 + 1234];
        new Random(7).nextBytes(content);
        Files.createDirectories(files.root().resolve("packages"));
        Files.write(files.root().resolve("packages/exporter-1.0.0.tgz"), content);

        Map<String, Object> hash = files.hash("packages/exporter-1.0.0.tgz");
        assertThat(hash).containsEntry("hash_type", "sha256")
                .containsEntry("hsum", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)));
        assertThat(files.hash("salt://packages/exporter-1.0.0.tgz")).isEqualTo(hash);

        ByteArrayOutputStream received = new ByteArrayOutputStream();
        int chunks = 0;
        while (true) {
            Map<String, Object> chunk = files.serve("packages/exporter-1.0.0.tgz", received.size());
            byte[] data = (byte[]) chunk.get("data");
            if (data.length == 0) {
                break;
            }
            assertThat(data.length).isLessThanOrEqualTo(FileServer.CHUNK);
            received.write(data);
            chunks++;
        }
        assertThat(chunks).isEqualTo(3);
        assertThat(received.toByteArray()).isEqualTo(content);
        assertThat(files.list("packages/")).containsExactly("packages/exporter-1.0.0.tgz");
        assertThat(files.list("other/")).isEmpty();
    }

    /** A batch of agents on a server lacking a package ask for it at once: it is restored once, and each finds it. */
    @Test
    void requestsForAMissingFileAtTheSameTimeRestoreItOnce() throws Exception {
        AtomicInteger restores = new AtomicInteger();
        CountDownLatch inRestore = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Path root = dir.resolve("root");
        FileServer files = new FileServer(root, relative -> {
            restores.incrementAndGet();
            inRestore.countDown();
            try {
                finish.await();
                Files.createDirectories(root.resolve(relative).getParent());
                Files.writeString(root.resolve(relative), "package");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return true;
        });
        List<Future<Map<String, Object>>> asked = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                for (int i = 0; i < 100; i++) {
                    asked.add(threads.submit(() -> files.hash("agent-packages/drover-agent-2.0.0-linux-x86_64.tar.gz")));
                }
                inRestore.await();
                // without one restore per file, the other requests would each start their own meanwhile
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> restores.get() == 1);
                assertThat(asked).noneMatch(Future::isDone);
            } finally {
                finish.countDown();
            }
        }
        assertThat(restores.get()).isEqualTo(1);
        assertThat(asked).allSatisfy(f -> assertThat(f.resultNow()).containsKey("hsum"));
    }

    @Test
    void refusesPathsThatLeaveTheRoot() throws Exception {
        FileServer files = new FileServer(dir.resolve("root"));
        Files.writeString(dir.resolve("secret"), "outside");
        Files.createSymbolicLink(files.root().resolve("link"), dir.resolve("secret"));
        Files.createSymbolicLink(files.root().resolve("linkdir"), dir);
        for (Object path : new Object[] {"../secret", "/etc/passwd", "a/../../secret", "link", "linkdir/secret",
                "salt://../secret", "", null, 42, "x\0y"}) {
            assertThat(files.resolve(path)).as(String.valueOf(path)).isEmpty();
            assertThat(files.hash(path)).as(String.valueOf(path)).isEmpty();
            assertThat((String) files.serve(path, 0).get("dest")).as(String.valueOf(path)).isEmpty();
        }
        assertThat(files.list("")).doesNotContain("link", "linkdir/secret");
    }
}

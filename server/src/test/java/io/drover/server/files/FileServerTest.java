package io.drover.server.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
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

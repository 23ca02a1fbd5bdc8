package io.drover.agent;

import io.drover.agent.functions.FileSource;
import io.drover.transport.minion.SaltMinion;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Fetches server files over the agent transport (Salt's {@code _file_hash} and {@code _serve_file} in chunks). */
public final class FileserverSource implements FileSource {
    private static final long MAX_BYTES = 2L << 30;

    private final java.util.function.Supplier<SaltMinion> minion;
    private final Path tmpDir;

    public FileserverSource(java.util.function.Supplier<SaltMinion> minion, Path tmpDir) {
        this.minion = minion;
        this.tmpDir = tmpDir;
    }

    @Override
    public Path fetch(String path, String expectedSha256) throws IOException {
        SaltMinion server = minion.get();
        if (server == null) {
            throw new IOException("this agent takes plans over AMQP only (no --master): there is no Drover fileserver to fetch "
                    + path + " from");
        }
        Map<?, ?> hash = (Map<?, ?>) server.call("_file_hash", Map.of("path", path, "saltenv", "base"))
                .filter(r -> r instanceof Map<?, ?>).orElseThrow(() -> new IOException("the server did not answer for " + path));
        Object hsum = hash.get("hsum");
        if (hsum == null) {
            throw new IOException("the server has no file '" + path + "'");
        }
        if (!expectedSha256.equals(String.valueOf(hsum))) {
            throw new IOException("'" + path + "' on the server has sha256 " + String.valueOf(hsum) + ", not " + expectedSha256);
        }
        Files.createDirectories(tmpDir);
        Path file = Files.createTempFile(tmpDir, "fetch-", ".part");
        try (OutputStream out = Files.newOutputStream(file)) {
            MessageDigest digest = io.drover.core.Hashing.sha256Digest();
            long received = 0;
            while (true) {
                Map<String, Object> request = new LinkedHashMap<>();
                request.put("path", path);
                request.put("loc", received);
                request.put("saltenv", "base");
                Object reply = server.call("_serve_file", request).orElseThrow(
                        () -> new IOException("the server stopped answering while sending " + path));
                byte[] data = reply instanceof Map<?, ?> m ? io.drover.transport.wire.SaltPack.bytes(m.get("data")) : new byte[0];
                if (data.length == 0) {
                    break;
                }
                received += data.length;
                if (received > MAX_BYTES) {
                    throw new IOException("'" + path + "' is larger than " + MAX_BYTES + " bytes");
                }
                digest.update(data);
                out.write(data);
            }
            String actual = HexFormat.of().formatHex(digest.digest());
            if (!actual.equals(expectedSha256)) {
                throw new IOException("'" + path + "' arrived with sha256 " + actual + ", not " + expectedSha256);
            }
            return file;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }
}

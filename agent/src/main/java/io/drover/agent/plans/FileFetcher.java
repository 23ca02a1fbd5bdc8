package io.drover.agent.plans;

import io.drover.agent.functions.FileSource;
import io.drover.core.Hashing;
import io.drover.core.plans.PlanErrorCode;
import io.drover.core.plans.PlanException;
import io.drover.core.plans.PlanFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Fetches Downloadable files into a cache named by sha256: over http(s), or from Drover's fileserver for
 * {@code salt://} URLs. A file whose plan gives its sha256 and which is in the cache is not fetched again. Any
 * failure is error 8.
 */
final class FileFetcher {
    static final long MAX_BYTES = 512L << 20;
    private final Path cache;
    private final FileSource fileserver;
    /** Made on the first download: an HTTP client costs an idle agent memory and a thread. */
    private HttpClient http;

    FileFetcher(Path cache, FileSource fileserver) {
        this.cache = cache;
        this.fileserver = fileserver;
    }

    /** The cached copy of the file. */
    Path fetch(PlanFile file, Duration timeout) throws InterruptedException {
        try {
            Files.createDirectories(cache);
            if (file.sha256() != null && Files.isRegularFile(cache.resolve(file.sha256()))) {
                return cache.resolve(file.sha256());
            }
            Path fetched = file.url().regionMatches(true, 0, "salt://", 0, 7)
                    ? fileserver.fetch(file.url().substring(7), file.sha256()) : download(file, timeout);
            String sha256 = sha256(fetched);
            if (file.sha256() != null && !file.sha256().equals(sha256)) {
                Files.deleteIfExists(fetched);
                throw new IOException("it arrived with sha256 " + sha256 + ", not " + file.sha256());
            }
            Path target = cache.resolve(sha256);
            Files.move(fetched, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new PlanException(PlanErrorCode.FETCH_ERROR, "Cannot fetch file " + file.id() + " from " + file.url()
                    + ": " + e.getMessage());
        }
    }

    private synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build();
        }
        return http;
    }

    private Path download(PlanFile file, Duration timeout) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(file.url())).timeout(timeout.isZero() ? Duration.ofSeconds(1) : timeout)
                .GET().build();
        HttpResponse<InputStream> response = http().send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException("HTTP " + response.statusCode());
            }
            Path part = Files.createTempFile(cache, "download-", ".part");
            try (OutputStream out = Files.newOutputStream(part)) {
                byte[] buffer = new byte[64 * 1024];
                long total = 0;
                int n;
                while ((n = in.read(buffer)) > 0) {
                    total += n;
                    if (total > MAX_BYTES) {
                        throw new IOException("it is larger than " + MAX_BYTES + " bytes");
                    }
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                Files.deleteIfExists(part);
                throw e;
            }
            return part;
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());
        }
    }

    private static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return Hashing.sha256(in);
        }
    }
}

package io.drover.server.agentinstall;

import io.drover.core.Hashing;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent packages of one directory, as the build writes them: {@code drover-agent-<version>-linux-<arch>.tar.gz}
 * (regular files only, no symbolic links), each checked against its {@code .sha256} file when there is one. Looked
 * at on every call, so a package copied in is offered without a restart.
 */
public final class DirectoryPackageFiles implements AgentPackageFiles {
    /** The versions and architectures a name may carry: nothing that could reach a shell or a path unquoted. */
    static final Pattern NAME = Pattern.compile("drover-agent-([0-9][0-9A-Za-z.+-]{0,63})-linux-(x86_64|aarch64)\\.tar\\.gz");

    private final Path dir;

    public DirectoryPackageFiles(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    @Override
    public Optional<PackageFile> newest(String arch) {
        return candidates(arch).stream().max(Comparator.comparing(c -> c.version, DirectoryPackageFiles::compareVersions))
                .map(Candidate::read);
    }

    @Override
    public Optional<PackageFile> find(String version, String arch) {
        return candidates(arch).stream().filter(c -> c.version.equals(version)).findFirst().map(Candidate::read);
    }

    private record Candidate(Path path, String version, String arch) {
        PackageFile read() {
            try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
                String sha256 = Hashing.sha256(in);
                Path sum = path.resolveSibling(path.getFileName() + ".sha256");
                if (Files.isRegularFile(sum, LinkOption.NOFOLLOW_LINKS) && Files.size(sum) < 4096
                        && !Files.readString(sum).startsWith(sha256 + " ")) {
                    throw new IllegalStateException("agent package " + path + " does not match its .sha256 file: copy it again");
                }
                return new PackageFile(path, version, arch, sha256);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private List<Candidate> candidates(String arch) {
        List<Candidate> found = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (var files = Files.list(dir)) {
            files.forEach(f -> {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (m.matches() && m.group(2).equals(arch) && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    found.add(new Candidate(f, m.group(1), m.group(2)));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    /** Dotted numbers compared as numbers, then the rest as text (0.10.0 after 0.9.1). */
    static int compareVersions(String a, String b) {
        String[] x = a.split("[.+-]");
        String[] y = b.split("[.+-]");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = x[i].matches("\\d{1,9}") && y[i].matches("\\d{1,9}")
                    ? Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i])) : x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }
}

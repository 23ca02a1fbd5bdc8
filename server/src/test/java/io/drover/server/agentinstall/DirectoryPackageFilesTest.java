package io.drover.server.agentinstall;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryPackageFilesTest {
    @TempDir
    Path dir;

    @Test
    void offersTheNewestRegularPackageOfAnArchitectureOnly() throws Exception {
        Files.writeString(dir.resolve("drover-agent-0.9.1-linux-x86_64.tar.gz"), "old");
        Files.writeString(dir.resolve("drover-agent-0.10.0-linux-x86_64.tar.gz"), "new");
        Files.writeString(dir.resolve("drover-agent-0.11.0-linux-aarch64.tar.gz"), "arm");
        // names that could reach a shell or a path are not packages; neither is a symbolic link
        Files.writeString(dir.resolve("drover-agent-1.0;rm -rf-linux-x86_64.tar.gz"), "x");
        Files.writeString(dir.resolve("drover-agent-2.0-linux-x86_64$(id).tar.gz"), "x");
        Path outside = Files.writeString(dir.resolveSibling(dir.getFileName() + "-secret"), "secret");
        Files.createSymbolicLink(dir.resolve("drover-agent-9.0.0-linux-x86_64.tar.gz"), outside);

        DirectoryPackageFiles files = new DirectoryPackageFiles(dir);
        var newest = files.newest("x86_64").orElseThrow();
        assertThat(newest.version()).isEqualTo("0.10.0");
        assertThat(newest.sha256()).hasSize(64);
        assertThat(files.newest("aarch64").orElseThrow().version()).isEqualTo("0.11.0");
        assertThat(files.newest("../x86_64")).isEmpty();
        assertThat(files.find("0.9.1", "x86_64")).isPresent();
        assertThat(files.find("9.0.0", "x86_64")).isEmpty();
        assertThat(new DirectoryPackageFiles(dir.resolve("missing")).newest("x86_64")).isEmpty();
    }

    @Test
    void aPackageThatDoesNotMatchItsSha256FileIsRefused() throws Exception {
        Files.writeString(dir.resolve("drover-agent-1.0.0-linux-x86_64.tar.gz"), "damaged");
        Files.writeString(dir.resolve("drover-agent-1.0.0-linux-x86_64.tar.gz.sha256"), "0".repeat(64) + "  x\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DirectoryPackageFiles(dir).newest("x86_64"))
                .hasMessageContaining("does not match its .sha256 file");
    }
}

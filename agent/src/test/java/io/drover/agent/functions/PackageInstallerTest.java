package io.drover.agent.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.archive.ArchiveException;
import io.drover.core.archive.TarWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageInstallerTest {
    @TempDir
    Path dir;

    interface Entries {
        void write(TarWriter tar) throws IOException;
    }

    static Path tgz(Path file, Entries entries) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file)); TarWriter tar = new TarWriter(out)) {
            entries.write(tar);
        }
        return file;
    }

    final PackageInstaller installer = new PackageInstaller(10_000, 50);

    @Test
    void extractsFilesModesAndInnerLinksThenReplacesThePreviousVersion() throws IOException {
        Path target = dir.resolve("plugins/exporter");
        installer.install(tgz(dir.resolve("v1.tgz"), tar -> tar.file("old.txt", 0644, "v1".getBytes(StandardCharsets.UTF_8))), target);
        int files = installer.install(tgz(dir.resolve("v2.tgz"), tar -> {
            tar.directory("bin", 0755);
            tar.file("bin/exporter", 0755, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8));
            tar.file("etc/exporter.yaml", 0640, "port: 9100\n".getBytes(StandardCharsets.UTF_8));
            tar.special("current", '2', "bin");
            tar.special("etc/copy.yaml", '1', "etc/exporter.yaml");
        }), target);
        assertThat(files).isEqualTo(2);
        assertThat(Files.isExecutable(target.resolve("bin/exporter"))).isTrue();
        assertThat(Files.readString(target.resolve("etc/copy.yaml"))).isEqualTo("port: 9100\n");
        assertThat(Files.readSymbolicLink(target.resolve("current"))).isEqualTo(Path.of("bin"));
        assertThat(target.resolve("old.txt")).doesNotExist();
        try (var left = Files.list(target.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()).toList()).containsExactly("exporter");
        }
    }

    @Test
    void hostilePackagesAreRefusedAndLeaveTheTargetAsItWas() throws IOException {
        Path target = dir.resolve("plugins/exporter");
        installer.install(tgz(dir.resolve("good.tgz"), tar -> tar.file("keep.txt", 0644, "kept".getBytes(StandardCharsets.UTF_8))), target);
        Path outside = dir.resolve("outside.txt");
        Entries[] hostile = {
                tar -> tar.file("../outside.txt", 0644, new byte[1]),
                tar -> tar.file("/tmp/absolute.txt", 0644, new byte[1]),
                tar -> tar.special("escape", '2', "../../.."),
                tar -> tar.special("abs", '2', "/etc"),
                tar -> {
                    tar.special("dirlink", '2', ".");
                    tar.file("dirlink/x", 0644, new byte[1]);
                },
                tar -> tar.special("hard", '1', "etc/passwd"),
                tar -> tar.special("dev", '3', ""),
                tar -> tar.file("big", 0644, new byte[20_000]),
                tar -> {
                    for (int i = 0; i < 60; i++) {
                        tar.file("f" + i, 0644, new byte[1]);
                    }
                },
        };
        String[] reasons = {"'..'", "absolute path", "outside the package", "outside the package", "through the link",
                "not a file of the package", "device", "larger than", "more than 50 entries"};
        for (int i = 0; i < hostile.length; i++) {
            Path archive = tgz(dir.resolve("bad" + i + ".tgz"), hostile[i]);
            assertThatThrownBy(() -> installer.install(archive, target)).as(reasons[i])
                    .isInstanceOf(ArchiveException.class).hasMessageContaining(reasons[i]);
            assertThat(Files.readString(target.resolve("keep.txt"))).isEqualTo("kept");
            assertThat(outside).doesNotExist();
            try (var left = Files.list(target.getParent())) {
                assertThat(left.count()).as("no staging directory left").isEqualTo(1);
            }
        }
        Path corrupt = Files.write(dir.resolve("corrupt.tgz"), "not gzip".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> installer.install(corrupt, target)).hasMessageContaining("not a gzip-compressed tar");
    }

    @Test
    void aLaterEntryReplacesAnEarlierLinkInsteadOfWritingThroughIt() throws IOException {
        Path target = dir.resolve("plugins/exporter");
        installer.install(tgz(dir.resolve("dup.tgz"), tar -> {
            tar.file("real.conf", 0644, "real".getBytes(StandardCharsets.UTF_8));
            tar.special("app.conf", '2', "real.conf");
            tar.file("app.conf", 0600, "own".getBytes(StandardCharsets.UTF_8));
            tar.special("lib/libx.so", '2', "../real.conf");
        }), target);
        assertThat(Files.isSymbolicLink(target.resolve("app.conf"))).isFalse();
        assertThat(target.resolve("app.conf")).hasContent("own");
        assertThat(target.resolve("real.conf")).hasContent("real");
        assertThat(target.resolve("lib/libx.so")).as("'..' at the start of a link is fine").hasContent("real");
        assertThat(Files.getPosixFilePermissions(target)).as("readable by the users plugins run as")
                .contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE);
    }
}

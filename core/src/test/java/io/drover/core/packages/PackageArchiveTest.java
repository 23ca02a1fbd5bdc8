package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.archive.TarWriter;
import io.drover.core.packages.PackageArchive.SourceFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class PackageArchiveTest {
    static final String METADATA = """
            name: node_exporter
            version: 1.8.2
            description: Prometheus host metrics
            category: external
            os: linux
            cpu_arch: [x86_64, aarch64]
            control: {start: ./start.sh, stop: ./stop.sh, reload: ./reload.sh}
            port_range: "9100,9200-9210"
            dependencies: [{name: libcompat, version: ">=1.0.0"}]
            system: {drover: ">=0.1.0"}
            config_templates:
              - {name: main, path: etc, source: templates/exporter.yaml.j2, format: yaml, is_main: true}
            parameters:
              type: object
              properties:
                listen_port: {type: integer, minimum: 1, maximum: 65535, default: 9100}
                token: {type: string, writeOnly: true}
              required: [token]
            """;

    static TreeMap<String, SourceFile> sources(String metadata) {
        TreeMap<String, SourceFile> files = new TreeMap<>();
        files.put("metadata.yaml", new SourceFile("metadata.yaml", 0644, metadata.getBytes(StandardCharsets.UTF_8)));
        files.put("templates/exporter.yaml.j2", new SourceFile("templates/exporter.yaml.j2", 0644, "port: {{ listen_port }}\n".getBytes()));
        files.put("start.sh", new SourceFile("start.sh", 0755, "#!/bin/sh\n".getBytes()));
        files.put("NOTES.j2", new SourceFile("NOTES.j2", 0644, "listening on {{ listen_port }}".getBytes()));
        return files;
    }

    static PackageArchive read(byte[] tgz) {
        return PackageArchive.read(new ByteArrayInputStream(tgz));
    }

    @Test
    void buildThenReadRoundTripsAndIsReproducible() {
        byte[] tgz = PackageArchive.build(sources(METADATA));
        PackageArchive archive = read(tgz);
        assertThat(archive.metadata().name()).isEqualTo("node_exporter");
        assertThat(archive.metadata().os()).containsExactly("linux");
        assertThat(archive.files()).contains("templates/exporter.yaml.j2", "start.sh");
        assertThat(archive.notes()).isEqualTo("listening on {{ listen_port }}");
        assertThat(PackageArchive.build(sources(METADATA))).as("same files, same bytes").isEqualTo(tgz);
    }

    @Test
    void missingFieldsAreAllListed() {
        assertThatThrownBy(() -> PackageArchive.build(sources("description: nothing else\n")))
                .isInstanceOfSatisfying(PackageException.class, e -> assertThat(e.problems()).contains(
                        "name is required", "version is required",
                        "category is required: one of [external, official, scripts]",
                        "os is required: one or more of [aix, linux, windows]",
                        "cpu_arch is required: one or more of [aarch64, powerpc, x86, x86_64]"));
    }

    @Test
    void badValuesAreNamed() {
        String bad = METADATA.replace("version: 1.8.2", "version: 1.8")
                .replace("\">=1.0.0\"", "\">>1\"").replace("9200-9210", "9210-9200")
                .replace("source: templates/exporter.yaml.j2", "source: templates/missing.j2")
                .replace("minimum: 1,", "minimum: one,");
        assertThatThrownBy(() -> PackageArchive.build(sources(bad))).isInstanceOfSatisfying(PackageException.class,
                e -> assertThat(e.problems()).contains(
                        "version '1.8' is not a semantic version MAJOR.MINOR.PATCH",
                        "dependencies.libcompat: invalid version constraint '>>1': cannot read '>>1'",
                        "port_range '9100,9210-9200': range 9210-9200 ends before it starts",
                        "config_templates[0].source 'templates/missing.j2' is not in the package",
                        "parameters.properties.listen_port.minimum: must be a number"));
        assertThatThrownBy(() -> PackageArchive.build(sources(METADATA + "confg_templates: []\n")))
                .hasMessageContaining("unknown field 'confg_templates'");
        assertThatThrownBy(() -> PackageArchive.build(sources(METADATA.replace("path: etc", "path: ../etc"))))
                .hasMessageContaining("config_templates[0].path");
    }

    @Test
    void corruptOrTruncatedArchivesAreRefused() {
        byte[] tgz = PackageArchive.build(sources(METADATA));
        assertThatThrownBy(() -> read("not a package".getBytes())).hasMessageContaining("not a gzip-compressed tar archive");
        assertThatThrownBy(() -> read(Arrays.copyOf(tgz, tgz.length / 2))).isInstanceOf(PackageException.class);
        byte[] flipped = tgz.clone();
        flipped[tgz.length / 2] ^= 0x55;
        assertThatThrownBy(() -> read(flipped)).isInstanceOf(PackageException.class);
    }

    @Test
    void entriesLeavingThePackageAreRefused() throws IOException {
        assertThatThrownBy(() -> read(tar(t -> t.file("../evil", 0644, new byte[1]))))
                .hasMessageContaining("leaves the package with '..'");
        assertThatThrownBy(() -> read(tar(t -> t.file("/etc/passwd", 0644, new byte[1]))))
                .hasMessageContaining("absolute path");
        assertThatThrownBy(() -> read(tar(t -> t.special("bin/link", '2', "../../etc/shadow"))))
                .hasMessage("entry 'bin/link' is a symbolic link (to '../../etc/shadow'): packages may not contain links");
        assertThatThrownBy(() -> read(tar(t -> t.special("bin/inside", '2', "metadata.yaml"))))
                .hasMessageContaining("is a symbolic link");
        assertThatThrownBy(() -> read(tar(t -> t.special("hard", '1', "/etc/shadow"))))
                .hasMessageContaining("is a hard link");
        assertThatThrownBy(() -> read(tar(t -> t.special("dev/sda", '3', ""))))
                .hasMessageContaining("device, fifo or other special file");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out); TarWriter tar = new TarWriter(gzip)) {
            tar.file("sub/metadata.yaml", 0644, METADATA.getBytes(StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> read(out.toByteArray())).hasMessage("package has no metadata.yaml at its root");
    }

    interface Entries {
        void write(TarWriter tar) throws IOException;
    }

    /** A valid package plus the given extra entries. */
    private static byte[] tar(Entries extra) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out); TarWriter tar = new TarWriter(gzip)) {
            extra.write(tar);
            for (Map.Entry<String, SourceFile> e : sources(METADATA).entrySet()) {
                tar.file(e.getKey(), e.getValue().mode(), e.getValue().content());
            }
        }
        return out.toByteArray();
    }
}

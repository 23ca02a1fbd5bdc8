package io.drover.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TarReaderTest {

    @Test
    void readsWhatTheWriterWroteIncludingLongNamesAndLinks() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        String longName = "plugin/" + "x".repeat(150) + "/config.yaml";
        try (TarWriter tar = new TarWriter(bytes)) {
            tar.directory("plugin", 0755);
            tar.file("plugin/bin/exporter", 0755, "#!/bin/sh\necho hi\n".getBytes(StandardCharsets.UTF_8));
            tar.file(longName, 0644, new byte[1000]);
            tar.special("plugin/current", '2', "bin");
        }
        TarReader reader = new TarReader(new ByteArrayInputStream(bytes.toByteArray()));
        List<String> seen = new ArrayList<>();
        for (TarReader.Entry e = reader.next(); e != null; e = reader.next()) {
            seen.add(e.type() + " " + e.name() + " " + Integer.toOctalString(e.mode()) + " " + e.size() + " " + e.linkName());
            if (e.name().equals("plugin/bin/exporter")) {
                assertThat(new String(reader.content().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("#!/bin/sh\necho hi\n");
            }
        }
        assertThat(seen).containsExactly("5 plugin/ 755 0 ", "0 plugin/bin/exporter 755 18 ",
                "0 " + longName + " 644 1000 ", "2 plugin/current 644 0 bin");
    }

    @Test
    void garbageAndTruncationAreNamed() {
        byte[] garbage = "this is not a tar archive at all".repeat(20).getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new TarReader(new ByteArrayInputStream(garbage)).next())
                .isInstanceOf(ArchiveException.class).hasMessageContaining("checksum mismatch");
        assertThatThrownBy(() -> new TarReader(new ByteArrayInputStream(new byte[100])).next())
                .isInstanceOf(ArchiveException.class).hasMessageContaining("truncated");
    }

    @Test
    void entryPathsMustStayInsideThePackage() {
        assertThat(EntryPath.check("./a//b/./c")).isEqualTo("a/b/c");
        assertThat(EntryPath.check("./")).isEmpty();
        assertThatThrownBy(() -> EntryPath.check("../x")).hasMessageContaining("leaves the package with '..'");
        assertThatThrownBy(() -> EntryPath.check("a/../../x")).hasMessageContaining("'..'");
        assertThatThrownBy(() -> EntryPath.check("/etc/passwd")).hasMessageContaining("absolute path");
        assertThatThrownBy(() -> EntryPath.check("C:/x")).hasMessageContaining("absolute path");
        assertThatThrownBy(() -> EntryPath.check("a\0b")).hasMessageContaining("NUL");
        assertThat(EntryPath.linkTarget("a/b/link", "../c")).isEqualTo("a/c");
        assertThat(EntryPath.linkTarget("a/link", "../c")).isEqualTo("c");
        assertThatThrownBy(() -> EntryPath.linkTarget("a/link", "../../etc")).hasMessageContaining("outside the package");
        assertThatThrownBy(() -> EntryPath.linkTarget("link", "/etc")).hasMessageContaining("outside the package");
    }
}

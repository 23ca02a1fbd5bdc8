package io.drover.core.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.testing.AgentPackages;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** What the server accepts as an agent package: names, layout, and what a hostile archive may try. */
class AgentPackageArchiveTest {
    static final String TOP = "drover-agent-1.2.0-linux-x86_64";

    static AgentPackageName check(byte[] tgz) {
        return AgentPackageArchive.check(new ByteArrayInputStream(tgz));
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWellFormedPackageIsNamedByItsDirectoryVersionAndArch() {
        assertThat(check(AgentPackages.of("1.2.0", "x86_64"))).isEqualTo(new AgentPackageName("1.2.0", "x86_64"));
        assertThat(check(AgentPackages.of("0.1.0-SNAPSHOT", "aarch64")).fileName())
                .isEqualTo("drover-agent-0.1.0-SNAPSHOT-linux-aarch64.tar.gz");
    }

    @Test
    void fileNamesFollowThePatternAndVersionsAreNormalSemanticVersions() {
        assertThat(AgentPackageName.ofFileName("drover-agent-1.0.0-rc.1-linux-aarch64.tar.gz"))
                .isEqualTo(new AgentPackageName("1.0.0-rc.1", "aarch64"));
        assertThat(AgentPackageName.ofFileName("drover-agent-2.0.0+build.7-linux-x86_64.tar.gz").directory())
                .isEqualTo("drover-agent-2.0.0+build.7-linux-x86_64");
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("drover-agent-1.0.0-linux-x86_64.tgz", "is not named drover-agent-<version>-linux-<arch>.tar.gz");
        refused.put("drover-agent-1.0.0-linux-riscv64.tar.gz", "with <arch> one of [x86_64, aarch64]");
        refused.put("drover-agent-1.0.0-windows-x86_64.tar.gz", "is not named");
        refused.put("drover-agent--linux-x86_64.tar.gz", "is not named");
        refused.put("drover-agent-latest-linux-x86_64.tar.gz", "is not a semantic version");
        refused.put("drover-agent-v1.0.0-linux-x86_64.tar.gz", "normal form");
        refused.put("drover-agent-1.0-linux-x86_64.tar.gz", "normal form");
        refused.put("drover-agent-../../etc-linux-x86_64.tar.gz", "must be 1 to 64 letters");
        refused.put("drover-agent-1.0.0/x-linux-x86_64.tar.gz", "must be 1 to 64 letters");
        refused.put("drover-agent-1.0.0\u0000-linux-x86_64.tar.gz", "\\u0000");
        refused.put("drover-agent-1.0.0\u202e-linux-x86_64.tar.gz", "\\u202e");
        refused.put("drover-agent-１.0.0-linux-x86_64.tar.gz", "\\uff11");
        refused.put("drover-agent-1." + "0".repeat(70) + "-linux-x86_64.tar.gz", "must be 1 to 64");
        refused.forEach((name, why) -> assertThatThrownBy(() -> AgentPackageName.ofFileName(name)).as(name)
                .isInstanceOf(AgentPackageException.class).hasMessageContaining(why));
        assertThatThrownBy(() -> new AgentPackageName("1.0.0", "X86_64")).hasMessageContaining("architecture 'X86_64'");
        assertThat(AgentPackageName.versionProblem("latest")).contains("not a semantic version");
    }

    @Test
    void versionAndArchFilesMustSayWhatTheDirectorySays() {
        byte[] otherVersion = AgentPackages.tgz(tar -> {
            tar.file(TOP + "/VERSION", 0644, bytes("1.3.0\n"));
            tar.file(TOP + "/ARCH", 0644, bytes("x86_64\n"));
            tar.file(TOP + "/bin/drover-agent", 0755, bytes("#!/bin/sh\n"));
        });
        byte[] otherArch = AgentPackages.tgz(tar -> {
            tar.file(TOP + "/VERSION", 0644, bytes("1.2.0"));
            tar.file(TOP + "/ARCH", 0644, bytes("aarch64\n"));
            tar.file(TOP + "/bin/drover-agent", 0755, bytes("#!/bin/sh\n"));
        });
        assertThatThrownBy(() -> check(otherVersion)).hasMessage(TOP + "/VERSION says '1.3.0' but the package is named for version 1.2.0");
        assertThatThrownBy(() -> check(otherArch)).hasMessage(TOP + "/ARCH says 'aarch64' but the package is named for x86_64");
    }

    @Test
    void anArchiveWithoutTheAgentsFilesIsNoAgentPackage() {
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> {
            tar.file(TOP + "/VERSION", 0644, bytes("1.2.0"));
            tar.file(TOP + "/ARCH", 0644, bytes("x86_64"));
        }))).hasMessage("is not an agent package: " + TOP + "/ has no bin/drover-agent");
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> tar.file(TOP + "/ARCH", 0644, bytes("x86_64")))))
                .hasMessageContaining("has no VERSION file");
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> {
            tar.file(TOP + "/VERSION", 0644, bytes("1.2.0"));
            tar.file(TOP + "/ARCH", 0644, bytes("x86_64"));
            tar.file(TOP + "/bin/drover-agent", 0644, bytes("#!/bin/sh\n"));
        }))).hasMessage("'" + TOP + "/bin/drover-agent' is not executable");
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> { }))).hasMessage("the archive is empty");
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> tar.file("VERSION", 0644, bytes("1.2.0")))))
                .hasMessageContaining("'VERSION' is not named drover-agent-<version>-linux-<arch>");
        assertThatThrownBy(() -> check(bytes("plain text, not gzip"))).hasMessageStartingWith("not a gzip-compressed tar archive");
        byte[] good = AgentPackages.of("1.2.0", "x86_64");
        assertThatThrownBy(() -> check(java.util.Arrays.copyOf(good, good.length / 2))).hasMessageContaining("truncated");
    }

    @Test
    void hostileEntriesAreRefusedNamingThem() {
        Map<AgentPackages.Entries, String> hostile = new LinkedHashMap<>();
        hostile.put(tar -> tar.file(TOP + "/../evil", 0644, bytes("x")), "leaves the package with '..'");
        hostile.put(tar -> tar.file("/etc/cron.d/evil", 0644, bytes("x")), "absolute path");
        hostile.put(tar -> {
            tar.directory(TOP, 0755);
            tar.file("drover-agent-6.6.6-linux-x86_64/x", 0644, bytes("x"));
        }, "is not under " + TOP + "/");
        hostile.put(tar -> tar.special(TOP + "/lib", '2', "../../etc"), "outside the package");
        hostile.put(tar -> tar.special(TOP + "/lib", '2', "../other"), "outside " + TOP + "/");
        hostile.put(tar -> tar.special(TOP + "/lib", '2', "/etc"), "outside the package");
        hostile.put(tar -> tar.special(TOP, '2', TOP + "/x"), "is a link; a package unpacks to a directory");
        hostile.put(tar -> tar.special(TOP + "/VERSION", '2', "x"), "is a link; it must be a file");
        hostile.put(tar -> tar.special(TOP + "/etc", '1', TOP + "/bin/drover-agent"), "hard link");
        hostile.put(tar -> tar.special(TOP + "/dev", '3', ""), "device, FIFO or other special file");
        hostile.put(tar -> tar.special(TOP + "/fifo", '6', ""), "device, FIFO");
        hostile.put(tar -> tar.file(TOP + "/bin/su", 04755, bytes("x")), "setuid or setgid");
        hostile.put(tar -> tar.file(TOP + "/bin/sg", 02755, bytes("x")), "setuid or setgid");
        hostile.put(tar -> tar.file(TOP + "/a\nb", 0644, bytes("x")), "control or non-ASCII");
        hostile.put(tar -> tar.file(TOP + "/caf\u00e9", 0644, bytes("x")), "'" + TOP + "/caf\\u00e9'");
        hostile.put(tar -> tar.file(TOP + "/\u202egpj.sh", 0644, bytes("x")), "\\u202e");
        hostile.put(tar -> tar.file(TOP + "\\..\\evil", 0644, bytes("x")), "backslash");
        hostile.put(tar -> tar.file(TOP + "/VERSION", 0644, bytes("1.2.0\n".repeat(100))), "larger than 256 bytes");
        hostile.put(tar -> {
            tar.file(TOP + "/VERSION", 0644, bytes("1.2.0"));
            tar.file(TOP + "/./VERSION", 0644, bytes("6.6.6"));
        }, "entry '" + TOP + "/VERSION' is in the archive twice");
        hostile.put(tar -> tar.file(TOP, 0644, bytes("x")), "is a file; a package unpacks to a directory");
        hostile.forEach((entries, why) -> assertThatThrownBy(() -> check(AgentPackages.tgz(entries))).as(why)
                .isInstanceOf(AgentPackageException.class).hasMessageContaining(why));
    }

    @Test
    void sizesAreRefusedFromHeadersBeforeAnythingIsInflated() throws IOException {
        // a header announcing more than the limit, with nothing after it: refused without reading further
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        raw.write(header(TOP + "/VERSION", 5));
        raw.write(bytes("1.2.0"));
        raw.write(new byte[512 - 5]);
        raw.write(header(TOP + "/lib/huge", AgentPackageArchive.MAX_UNPACKED_BYTES));
        assertThatThrownBy(() -> check(gzip(raw.toByteArray()))).hasMessage("unpacks to more than "
                + AgentPackageArchive.MAX_UNPACKED_BYTES + " bytes");
        assertThatThrownBy(() -> check(AgentPackages.tgz(tar -> {
            for (int i = 0; i <= AgentPackageArchive.MAX_ENTRIES; i++) {
                tar.directory(TOP + "/d" + i, 0755);
            }
        }))).hasMessage("holds more than " + AgentPackageArchive.MAX_ENTRIES + " entries");
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    /** A ustar file header with any size (GNU base-256 when it does not fit in octal). */
    static byte[] header(String name, long size) {
        byte[] h = new byte[512];
        System.arraycopy(bytes(name), 0, h, 0, name.length());
        System.arraycopy(bytes("0000644\0"), 0, h, 100, 8);
        h[124] = (byte) 0x80;
        for (int i = 0; i < 8; i++) {
            h[135 - i] = (byte) (size >>> (8 * i));
        }
        h[156] = '0';
        System.arraycopy(bytes("ustar\0" + "00"), 0, h, 257, 8);
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xFF;
        }
        System.arraycopy(bytes(String.format("%06o\0 ", sum)), 0, h, 148, 8);
        return h;
    }
}

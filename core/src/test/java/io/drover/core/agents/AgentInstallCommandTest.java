package io.drover.core.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.agents.AgentInstallCommand.Offer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the one-line install command says: the pin, the sha256 of each package, the token only by its file. */
class AgentInstallCommandTest {
    static final String PIN = "q3m8V4Rr0k1p8F2m5b6c7d8e9f0A1B2C3D4E5F6G7H8=";
    static final String FINGER = String.join(":", java.util.Collections.nCopies(32, "ab"));
    static final Offer X86 = new Offer(new AgentPackageName("1.2.0", "x86_64"), "a".repeat(64));
    static final Offer ARM = new Offer(new AgentPackageName("1.1.0", "aarch64"), "b".repeat(64));

    static AgentInstallCommand command(String url, String pin, List<Offer> offers, String masters, String finger, String file) {
        return new AgentInstallCommand(url, pin, offers, masters, finger, file);
    }

    @Test
    void overHttpsTheDownloadIsPinnedToTheServersKeyAndTheTokenComesFromItsFile() {
        String line = command("https://drover.example:8443", PIN, List.of(X86, ARM), "drover.example:4506", FINGER,
                AgentInstallCommand.DEFAULT_TOKEN_FILE).line();

        assertThat(line).startsWith("sh -c '").endsWith("'").doesNotContain("\n");
        assertThat(line.substring(7, line.length() - 1)).doesNotContain("'");
        assertThat(line).contains("--proto =https -k --pinnedpubkey sha256//" + PIN + " -H @- ")
                .contains("\"https://drover.example:8443/api/v1/agent-packages/$v/$a\"")
                .contains("x86_64) v=1.2.0 a=x86_64 s=" + "a".repeat(64) + ";;")
                .contains("aarch64) v=1.1.0 a=aarch64 s=" + "b".repeat(64) + ";;")
                .contains("printf \"Authorization: Enroll %s\\n\" \"$(tr -d \" \\t\\r\\n\" < \"$t\")\" | curl ")
                .contains("t=/root/drover-enroll.token;")
                .contains("\"$d/drover-agent-$v-linux-$a/bin/drover-agent\" install --master drover.example:4506 --master-finger "
                        + FINGER + " --enroll-token-file \"$t\"")
                .contains("[ \"$(sha256sum \"$d/p.tar.gz\" | cut -d\" \" -f1)\" = \"$s\" ] ||");
        assertThat(line).doesNotContain("drv_enroll_").doesNotContain("http://");
        assertThat(line.indexOf("sha256sum")).as("checked before it is unpacked").isLessThan(line.indexOf("tar -xzf"));
    }

    @Test
    void overPlainHttpThereIsNoPinAndNoHttpsOnlyProtocol() {
        String line = command("http://10.0.0.5:8080", null, List.of(X86), "10.0.0.5", FINGER, "/etc/drover/enroll.token").line();

        assertThat(line).doesNotContain("pinnedpubkey").doesNotContain("--proto").doesNotContain(" -k ")
                .contains("curl -fsS -H @- -o \"$d/p.tar.gz\" \"http://10.0.0.5:8080/api/v1/agent-packages/$v/$a\"")
                .contains("t=/etc/drover/enroll.token;").doesNotContain("aarch64)");
    }

    @Test
    void everyValueMustBePlainSoTheShellReadsNothingIntoIt() {
        List<String> badUrls = List.of("https://x.example/'; rm -rf /; '", "https://x.example/$(id)", "https://x.example/a b",
                "https://x.example/?q=1", "https://x.example/", "ftp://x.example", "https://x.example/`id`", "https://ex\u00e4mple");
        for (String url : badUrls) {
            assertThatThrownBy(() -> command(url, PIN, List.of(X86), "m", FINGER, "/t").line()).as(url)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the server URL");
        }
        assertThatThrownBy(() -> command("https://x", null, List.of(X86), "m", FINGER, "/t"))
                .hasMessageContaining("needs the pin of its certificate's key");
        assertThatThrownBy(() -> command("http://x", PIN, List.of(X86), "m", FINGER, "/t"))
                .hasMessageContaining("a pin is for an https:// server URL");
        assertThatThrownBy(() -> command("https://x", "abc'", List.of(X86), "m", FINGER, "/t")).hasMessageContaining("key pin");
        assertThatThrownBy(() -> command("https://x", PIN, List.of(X86), "m;reboot", FINGER, "/t")).hasMessageContaining("the master");
        assertThatThrownBy(() -> command("https://x", PIN, List.of(X86), "m", "ab:$(id)", "/t")).hasMessageContaining("fingerprint");
        for (String file : List.of("token", "/root/my token", "/root/$HOME", "/root/../etc/shadow", "/r/\u00e9")) {
            assertThatThrownBy(() -> command("https://x", PIN, List.of(X86), "m", FINGER, file)).as(file)
                    .hasMessageContaining("the token file");
        }
        assertThatThrownBy(() -> command("https://x", PIN, List.of(), "m", FINGER, "/t")).hasMessageContaining("no agent package");
        assertThatThrownBy(() -> command("https://x", PIN, List.of(X86, new Offer(new AgentPackageName("2.0.0", "x86_64"),
                "c".repeat(64))), "m", FINGER, "/t")).hasMessageContaining("two packages for x86_64");
        assertThatThrownBy(() -> new Offer(X86.name(), "A".repeat(64))).hasMessageContaining("64 hex digits");
    }
}

package io.drover.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Distribution grains named as Salt 3006 names them (checked against a salt-minion on Debian 12: os Debian, osrelease 12). */
class OsReleaseTest {
    @Test
    void debianTwelve() {
        String text = """
                PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
                NAME="Debian GNU/Linux"
                VERSION_ID="12"
                VERSION_CODENAME=bookworm
                ID=debian
                """;
        assertThat(OsRelease.grains(text)).containsExactlyInAnyOrderEntriesOf(Map.of("os", "Debian", "os_family", "Debian",
                "osrelease", "12", "oscodename", "bookworm"));
    }

    @Test
    void redHatFamilyAndUnknownDistributions() {
        assertThat(OsRelease.grains("NAME=\"Rocky Linux\"\nID=\"rocky\"\nVERSION_ID=\"9.3\"\n"))
                .containsEntry("os", "Rocky").containsEntry("os_family", "RedHat").containsEntry("osrelease", "9.3")
                .doesNotContainKey("oscodename");
        assertThat(OsRelease.grains("NAME='Plan Nine'\nID=plan9\n")).containsEntry("os", "Plan").containsEntry("os_family", "Plan");
        assertThat(OsRelease.grains("# nothing useful\ngarbage without equals\n")).isEmpty();
    }
}

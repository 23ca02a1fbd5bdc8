package io.drover.agent.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    @TempDir
    Path state;

    static String jid(long n) {
        return String.format("2026112800%010d", n);
    }

    @Test
    void aJobIdSeenBeforeIsRefusedAndAfterPruningSoIsAnyOlderSaltJid() {
        Journal journal = new Journal(state, 10);
        int jobs = 15;
        for (int i = 1; i <= jobs; i++) {
            assertThat(journal.begin(jid(i), new byte[] {1})).isTrue();
            journal.finish(jid(i), new byte[] {2});
            journal.acknowledged(jid(i));
        }
        assertThat(journal.begin(jid(1), new byte[] {1})).as("seen").isFalse();
        journal.prune();

        // the five oldest ids are forgotten as files, yet a replay of any of them (or of an older job) does not run
        Journal restarted = new Journal(state, 10);
        for (long old : new long[] {1, 5, 0}) {
            assertThat(restarted.begin(jid(old), new byte[] {1})).as(jid(old)).isFalse();
        }
        assertThat(restarted.begin(jid(jobs), new byte[] {1})).as("kept, seen").isFalse();
        assertThat(restarted.begin(jid(jobs + 1), new byte[] {1})).as("a new job").isTrue();
        assertThat(restarted.begin("not-a-salt-jid", new byte[] {1})).as("ids that do not order by time are not compared").isTrue();
    }

    @Test
    void aDamagedWatermarkRefusesNothing() throws java.io.IOException {
        java.nio.file.Files.createDirectories(state.resolve("journal"));
        for (String damaged : new String[] {"zzzz", "", "9".repeat(200), "2026112800\u00000000000"}) {
            java.nio.file.Files.writeString(state.resolve("journal/forgotten-up-to"), damaged,
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(new Journal(state, 10).begin(jid(damaged.length() + 1), new byte[] {1})).as(damaged).isTrue();
        }
    }
}

package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An unknown command is an error whether or not --help follows it; help for a known one still works. */
class UnknownCommandTest {
    @Test
    void anUnknownCommandWithHelpExitsTwoWithTheError() {
        EnrollInstallCommandTest.Run run = EnrollInstallCommandTest.drover("nosuch", "--help");

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("'nosuch'");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void anUnknownSubcommandWithHelpExitsTwoLikeWithoutIt() {
        EnrollInstallCommandTest.Run withHelp = EnrollInstallCommandTest.drover("plan", "nosuch", "-h");
        EnrollInstallCommandTest.Run without = EnrollInstallCommandTest.drover("plan", "nosuch");

        assertThat(withHelp.exit()).isEqualTo(2);
        assertThat(without.exit()).isEqualTo(2);
        assertThat(withHelp.err()).contains("'nosuch'");
    }

    @Test
    void helpForAKnownCommandExitsZero() {
        EnrollInstallCommandTest.Run top = EnrollInstallCommandTest.drover("--help");
        EnrollInstallCommandTest.Run plan = EnrollInstallCommandTest.drover("plan", "run", "--help");

        assertThat(top.exit()).isZero();
        assertThat(top.out()).contains("Usage: drover");
        assertThat(plan.exit()).isZero();
        assertThat(plan.out()).contains("Usage: drover plan run");
    }
}

package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServerCommandTest {
    static String parsed(String... args) {
        CommandLine command = ServerCommand.commandLine();
        command.parseArgs(args);
        return command.getCommandSpec().findOption("--cluster-insecure").getValue();
    }

    @Test
    void aSwitchIsOnWhenGivenWithoutAValueAndTakesAnExplicitOne() {
        assertThat(parsed("--cluster-insecure", "--port", "1")).isEqualTo("true");
        assertThat(parsed("--port", "1", "--cluster-insecure")).isEqualTo("true");
        assertThat(parsed("--cluster-insecure", "false")).isEqualTo("false");
        assertThat(parsed("--port", "1")).isNull();
    }
}

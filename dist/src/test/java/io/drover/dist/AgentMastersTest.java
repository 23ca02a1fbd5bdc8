package io.drover.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.transport.minion.MinionConfig.Master;
import org.junit.jupiter.api.Test;

/** {@code drover agent --master}: one server or a cluster's list, and what it refuses. */
class AgentMastersTest {

    @Test
    void oneServerOrSeveralInOrderWithTheDefaultPort() {
        assertThat(AgentRunCommand.masters("salt.example", 4505)).containsExactly(new Master("salt.example", 4505, 4506));
        assertThat(AgentRunCommand.masters("a:14506, b ,10.0.0.3:4507", 4505)).containsExactly(
                new Master("a", 4505, 14506), new Master("b", 4505, 4506), new Master("10.0.0.3", 4505, 4507));
    }

    @Test
    void malformedListsAreRefusedNamingTheEntry() {
        assertThatThrownBy(() -> AgentRunCommand.masters("a:x", 4505)).hasMessage("port 'x' is not a number");
        assertThatThrownBy(() -> AgentRunCommand.masters("a:70000", 4505)).hasMessage("port 70000 is not between 1 and 65535");
        assertThatThrownBy(() -> AgentRunCommand.masters("a,,b", 4505)).hasMessage("'' is not HOST or HOST:PORT");
        assertThatThrownBy(() -> AgentRunCommand.masters("a,b c", 4505)).hasMessage("'b c' is not HOST or HOST:PORT");
        assertThatThrownBy(() -> AgentRunCommand.masters("h\u0000st", 4505)).hasMessageContaining("is not HOST or HOST:PORT");
        assertThatThrownBy(() -> AgentRunCommand.masters(String.join(",", java.util.Collections.nCopies(17, "h")), 4505))
                .hasMessage("names 17 servers; at most 16");
        assertThat(AgentRunCommand.masters(String.join(",", java.util.Collections.nCopies(16, "h")), 4505)).hasSize(16);
    }
}

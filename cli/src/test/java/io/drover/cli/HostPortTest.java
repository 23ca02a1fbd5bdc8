package io.drover.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.cli.AgentInstallCommand.HostPort;
import org.junit.jupiter.api.Test;

/** HOST[:PORT] as drover agent install-remote and drover agent host-key forget take it. */
class HostPortTest {
    @Test
    void namesIpv4AndIpv6WithAndWithoutPorts() {
        assertThat(HostPort.parse("web-1")).isEqualTo(new HostPort("web-1", null));
        assertThat(HostPort.parse("10.0.1.7:2222")).isEqualTo(new HostPort("10.0.1.7", 2222));
        assertThat(HostPort.parse("fd00::1")).as("an IPv6 address alone").isEqualTo(new HostPort("fd00::1", null));
        assertThat(HostPort.parse("[fd00::1]:22")).isEqualTo(new HostPort("fd00::1", 22));
        assertThat(HostPort.parse("[fd00::1]")).isEqualTo(new HostPort("fd00::1", null));
    }

    @Test
    void aPortThatIsNoNumberOrAnUnclosedBracketIsRefused() {
        for (String bad : new String[] {"web-1:ssh", "web-1:", "[fd00::1", "[fd00::1]22", "[fd00::1]:", "web-1:123456"}) {
            assertThatThrownBy(() -> HostPort.parse(bad)).as(bad).isInstanceOf(CliException.class);
        }
    }
}

package io.drover.server.agentinstall;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The transport address hosts installed over SSH are given when the request names none. */
class AdvertisedMastersTest {
    @Test
    void anAddressOthersCanReachIsAdvertisedWithTheRequestPort() {
        assertThat(AgentInstallModule.advertisedMasters(" 10.0.0.5 ", 4506)).containsExactly("10.0.0.5:4506");
        assertThat(AgentInstallModule.advertisedMasters("drover.example", 4506)).containsExactly("drover.example:4506");
        assertThat(AgentInstallModule.advertisedMasters("fd00::5", 4506)).containsExactly("[fd00::5]:4506");
    }

    @Test
    void everyInterfaceOrLoopbackIsNotAdvertised() {
        for (String host : new String[] {"", "0.0.0.0", "::", "localhost", "127.0.0.1", "127.1.2.3", "::1"}) {
            assertThat(AgentInstallModule.advertisedMasters(host, 4506)).as(host).isEmpty();
        }
    }
}

package io.drover.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClientAddressTest {
    static final ClientAddress PROXIES = ClientAddress.trusting(List.of("10.0.0.0/8", "192.168.1.1", "fd00::/8"));

    @ParameterizedTest(name = "peer {0}, X-Forwarded-For [{1}] → {2}")
    @CsvSource(delimiter = '|', value = {
            // a trusted proxy forwards the client it saw
            "10.1.2.3 | 198.51.100.7 | 198.51.100.7",
            // a chain of trusted proxies: the nearest address that is not one
            "10.1.2.3 | 198.51.100.7, 192.168.1.1, 10.9.9.9 | 198.51.100.7",
            // what the client wrote itself, left of the first untrusted hop, is not believed
            "10.1.2.3 | 1.1.1.1, 198.51.100.7 | 198.51.100.7",
            // a peer that is no trusted proxy: its header is ignored
            "203.0.113.5 | 198.51.100.7 | 203.0.113.5",
            "192.168.1.2 | 198.51.100.7 | 192.168.1.2",
            // malformed hops or names are never resolved: the peer counts
            "10.1.2.3 | example.com | 10.1.2.3",
            "10.1.2.3 | 198.51.100.7, 300.1.1.1 | 10.1.2.3",
            "10.1.2.3 | '' | 10.1.2.3",
            // only trusted hops: the peer counts
            "10.1.2.3 | 10.4.4.4, 192.168.1.1 | 10.1.2.3",
            // IPv6
            "fd12::1 | 2001:db8::7 | 2001:db8::7",
            "[fd12::1] | 2001:db8::7 | 2001:db8::7",
            "2001:db8::1 | 2001:db8::7 | 2001:db8::1",
    })
    void onlyTrustedProxiesAreBelieved(String peer, String forwardedFor, String client) {
        assertThat(PROXIES.of(peer, forwardedFor)).isEqualTo(client);
    }

    @Test
    void controlCharactersMakeAHopMalformed() {
        assertThat(PROXIES.of("10.1.2.3", "198.51.100.7\u0000")).isEqualTo("10.1.2.3");
        assertThat(PROXIES.of("10.1.2.3", "198.51.100.7\n, 10.0.0.1")).isEqualTo("10.1.2.3");
    }

    @Test
    void withoutAHeaderOrProxiesThePeerCounts() {
        assertThat(PROXIES.of("10.1.2.3", null)).isEqualTo("10.1.2.3");
        assertThat(ClientAddress.trusting(List.of()).of("10.1.2.3", "198.51.100.7")).isEqualTo("10.1.2.3");
    }

    @Test
    void aLongHeaderIsReadSixteenHopsFromTheRightAtMost() {
        String hops = String.join(", ", java.util.Collections.nCopies(10_000, "10.0.0.1"));
        assertThat(PROXIES.of("10.1.2.3", "198.51.100.7, " + hops)).isEqualTo("10.1.2.3");
    }

    @Test
    void badBlocksAreRefusedNamingThem() {
        for (String bad : List.of("10.0.0.0/33", "fd00::/129", "10.0.0.0/-1", "10.0.0.0/x", "proxy.local", "10.0.0", "")) {
            assertThatThrownBy(() -> ClientAddress.trusting(List.of(bad))).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
    }
}

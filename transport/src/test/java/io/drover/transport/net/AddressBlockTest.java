package io.drover.transport.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AddressBlockTest {
    static java.net.InetAddress ip(String literal) {
        try {
            return java.net.InetAddress.getByAddress(AddressBlock.literal(literal));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource({
            "127.0.0.0/8, 127.0.0.1, true",
            "127.0.0.0/8, 127.255.255.255, true",
            "127.0.0.0/8, 128.0.0.1, false",
            "10.1.2.3, 10.1.2.3, true",
            "10.1.2.3, 10.1.2.4, false",
            "192.168.1.128/25, 192.168.1.200, true",
            "192.168.1.128/25, 192.168.1.127, false",
            "0.0.0.0/0, 203.0.113.9, true",
            "0.0.0.0/0, 2001:db8::1, false",
            "::1, ::1, true",
            "::1, ::2, false",
            "fd00::/8, fd12:3456::1, true",
            "fd00::/8, fe80::1, false",
            "::/0, 127.0.0.1, false",
            "[2001:db8::]/32, 2001:db8:ffff::1, true",
    })
    void containsWhatItShould(String block, String address, boolean contained) {
        assertThat(AddressBlock.parse(block).contains(AddressBlock.literal(address))).isEqualTo(contained);
        assertThat(AddressBlock.anyContains(List.of(AddressBlock.parse(block)), ip(address))).isEqualTo(contained);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "example.com", "localhost", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/x", "300.1.1.1",
            "1.2.3", "10.0.0.0/8/8", "1.2.3.4\u0000", "１.２.３.４"})
    void whatIsNoLiteralOrPrefixIsRefusedNamingIt(String text) {
        assertThatThrownBy(() -> AddressBlock.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @Test
    void noAddressIsInNoBlock() {
        assertThat(AddressBlock.anyContains(List.of(AddressBlock.parse("0.0.0.0/0")), null)).isFalse();
        assertThat(AddressBlock.anyContains(List.of(), ip("10.0.0.1"))).isFalse();
    }

    @Test
    void itsBytesCannotBeChangedFromOutside() {
        AddressBlock block = AddressBlock.parse("10.0.0.0/8");
        block.network()[0] = 11;
        assertThat(block.contains(AddressBlock.literal("11.0.0.1"))).isFalse();
        assertThat(block).isEqualTo(AddressBlock.parse("10.0.0.0/8")).hasToString("10.0.0.0/8");
    }
}

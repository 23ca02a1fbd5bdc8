package io.drover.core.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AddressBlockTest {
    static byte[] ip(String literal) {
        return AddressBlock.literal(literal);
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
            "1.2.3", "10.0.0.0/8/8", "10.0.0.0/+8", "10.0.0.0/08x", "010.0.0.1", "1.2.3.4\u0000", "１.２.３.４"})
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

    @Test
    void literalsParseAsTheJdkDoesAndNothingElseParses() throws Exception {
        for (String text : new String[] {"0.0.0.0", "255.255.255.255", "10.1.2.3", "::", "::1", "1::", "fe80::1:2",
                "2001:db8:0:0:1:0:0:1", "2001:DB8::abcd", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1::1.2.3.4",
                "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8"}) {
            byte[] jdk = java.net.InetAddress.getByName(text).getAddress();
            byte[] ours = AddressBlock.literal(text);
            // the JDK turns an IPv4-mapped address into its IPv4 address
            assertThat(ours == null ? null : unmapped(ours)).as(text).isEqualTo(jdk);
        }
        for (String text : new String[] {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "1..2.3", "+1.2.3.4",
                "1.2.3.4 ", "a.b.c.d", "host.example", "１.2.3.4", ":", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7", "12345::", "g::1", "::1%eth0", "fe80::1%1", "[::1", "::1]", "[[::1]]", "1.2.3.4::", "::1.2.3", "::256.0.0.1",
                "1:2:3:4:5:6:7:1.2.3.4", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "::\u0000", "0x1.2.3.4",
                "1".repeat(46), "::ffff:" + "1".repeat(40)}) {
            assertThat(AddressBlock.literal(text)).as("'%s'", text).isNull();
        }
        assertThat(AddressBlock.literal(null)).isNull();
    }

    @Test
    void anIpv6LiteralMayBeInBrackets() {
        assertThat(AddressBlock.literal("[::1]")).isEqualTo(AddressBlock.literal("::1"));
        assertThat(AddressBlock.literal("[1.2.3.4]")).isEqualTo(new byte[] {1, 2, 3, 4});
    }

    private static byte[] unmapped(byte[] address) {
        if (address.length == 16 && java.util.Arrays.equals(java.util.Arrays.copyOf(address, 12),
                new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF})) {
            return java.util.Arrays.copyOfRange(address, 12, 16);
        }
        return address;
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "10.1.2.3", "255.255.255.255", "::", "::1", "1::", "fe80::1:2", "2001:db8::1:0:0:1",
            "2001:db8:0:1:1:1:1:1", "1:0:0:2::3", "1:2:3:4:5:6:7:8", "abcd:ef01::"})
    void anAddressIsWrittenAsTheJdkWritesIt(String text) throws Exception {
        byte[] bytes = AddressBlock.literal(text);
        String jdk = java.net.InetAddress.getByAddress(bytes).getHostAddress();
        // the JDK writes IPv6 in full (1:0:0:2:0:0:0:3): ours reads back to the same bytes, with :: for the longest zero run
        assertThat(AddressBlock.literal(AddressBlock.text(bytes))).isEqualTo(bytes);
        assertThat(AddressBlock.text(bytes)).isEqualTo(text);
        assertThat(AddressBlock.literal(jdk)).isEqualTo(bytes);
    }
}

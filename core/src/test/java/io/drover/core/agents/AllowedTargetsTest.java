package io.drover.core.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AllowedTargetsTest {
    private static byte[] ip(String literal) throws Exception {
        return InetAddress.getByName(literal).getAddress();
    }

    private static boolean allows(String setting, String address, int port) throws Exception {
        return AllowedTargets.parse(setting).allows(ip(address), port);
    }

    @Test
    void starAllowsEverythingAndSaysSo() throws Exception {
        AllowedTargets any = AllowedTargets.parse("*");
        assertThat(any.allowsEverything()).isTrue();
        assertThat(any.allows(ip("10.0.0.1"), 1)).isTrue();
        assertThat(any.allows(ip("::1"), 65535)).isTrue();
        assertThat(AllowedTargets.parse("10.0.0.0/8, *").allowsEverything()).isTrue();
        assertThat(AllowedTargets.parse("*:*").allowsEverything()).isTrue();
        assertThat(AllowedTargets.parse("*:22").allowsEverything()).isFalse();
        assertThat(AllowedTargets.parse("0.0.0.0/0").allowsEverything()).as("IPv4 only: IPv6 is not allowed").isFalse();
    }

    @Test
    void ipv4BlocksWithAndWithoutPorts() throws Exception {
        assertThat(allows("10.0.0.0/8", "10.255.1.2", 22)).isTrue();
        assertThat(allows("10.0.0.0/8", "11.0.0.1", 22)).isFalse();
        assertThat(allows("10.0.0.0/8:22", "10.1.1.1", 22)).isTrue();
        assertThat(allows("10.0.0.0/8:22", "10.1.1.1", 23)).isFalse();
        assertThat(allows("10.0.0.0/8:2200-2299", "10.1.1.1", 2200)).isTrue();
        assertThat(allows("10.0.0.0/8:2200-2299", "10.1.1.1", 2299)).isTrue();
        assertThat(allows("10.0.0.0/8:2200-2299", "10.1.1.1", 2300)).isFalse();
        assertThat(allows("10.0.0.0/8:2200-2299", "10.1.1.1", 2199)).isFalse();
        assertThat(allows("10.0.0.0/8:*", "10.1.1.1", 65535)).isTrue();
        assertThat(allows("192.168.1.7", "192.168.1.7", 22)).isTrue();
        assertThat(allows("192.168.1.7", "192.168.1.8", 22)).isFalse();
        assertThat(allows("192.168.1.7/32:22", "192.168.1.7", 22)).isTrue();
        assertThat(allows("0.0.0.0/0:22", "203.0.113.9", 22)).isTrue();
        // a prefix that does not end on a byte boundary, and host bits set in the block
        assertThat(allows("172.16.0.0/12", "172.31.255.255", 22)).isTrue();
        assertThat(allows("172.16.0.0/12", "172.32.0.0", 22)).isFalse();
        assertThat(allows("172.16.0.0/12", "172.15.255.255", 22)).isFalse();
        assertThat(allows("10.1.2.3/24", "10.1.2.200", 22)).isTrue();
        assertThat(allows("10.1.2.3/24", "10.1.3.3", 22)).isFalse();
        assertThat(allows("10.0.0.1/31", "10.0.0.0", 22)).isTrue();
        assertThat(allows("10.0.0.1/31", "10.0.0.2", 22)).isFalse();
    }

    @Test
    void severalEntriesAnyOfThem() throws Exception {
        String setting = " 10.0.0.0/8:22 , 192.168.0.0/16:2222,[fd00::/8]:22, 127.0.0.1";
        assertThat(allows(setting, "10.9.9.9", 22)).isTrue();
        assertThat(allows(setting, "10.9.9.9", 2222)).isFalse();
        assertThat(allows(setting, "192.168.3.4", 2222)).isTrue();
        assertThat(allows(setting, "192.168.3.4", 22)).isFalse();
        assertThat(allows(setting, "fd12::1", 22)).isTrue();
        assertThat(allows(setting, "fd12::1", 23)).isFalse();
        assertThat(allows(setting, "fe80::1", 22)).isFalse();
        assertThat(allows(setting, "127.0.0.1", 65000)).isTrue();
        assertThat(allows(setting, "127.0.0.2", 22)).isFalse();
        assertThat(AllowedTargets.parse(setting).toString()).isEqualTo(setting.strip());
    }

    @Test
    void ipv6BlocksAndTheFamiliesStayApart() throws Exception {
        assertThat(allows("fd00::/8", "fdff:ffff::1", 22)).isTrue();
        assertThat(allows("fd00::/8", "fc00::1", 22)).isFalse();
        assertThat(allows("2001:db8::/32", "2001:db8:ffff::1", 22)).isTrue();
        assertThat(allows("2001:db8::/33", "2001:db8:8000::1", 22)).isFalse();
        assertThat(allows("::1", "::1", 22)).isTrue();
        assertThat(allows("::/0", "2001:db8::1", 22)).isTrue();
        assertThat(allows("::/0", "10.0.0.1", 22)).as("an IPv4 address is not in an IPv6 block").isFalse();
        assertThat(allows("0.0.0.0/0", "::1", 22)).as("nor an IPv6 address in an IPv4 block").isFalse();
        assertThat(allows("[2001:db8::/32]:22-23", "2001:db8::5", 23)).isTrue();
        assertThat(allows("[2001:db8::/32]:22-23", "2001:db8::5", 24)).isFalse();
        assertThat(allows("[::1]:22", "::1", 22)).isTrue();
        assertThat(allows("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8", 22)).isTrue();
        assertThat(allows("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:9", 22)).isFalse();
        assertThat(allows("64:ff9b::/96", "64:ff9b::a00:1", 22)).isTrue();
        assertThat(allows("10.0.0.0/8", "64:ff9b::a00:1", 22)).as("NAT64 is another block").isFalse();
    }

    @Test
    void anIpv4MappedAddressIsItsIpv4Address() {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, 10, 1, 2, 3};
        assertThat(AllowedTargets.parse("10.0.0.0/8").allows(mapped, 22)).isTrue();
        assertThat(AllowedTargets.parse("11.0.0.0/8").allows(mapped, 22)).isFalse();
        assertThat(AllowedTargets.parse("::ffff:10.0.0.0/104").allows(new byte[] {10, 9, 9, 9}, 22)).isTrue();
        assertThat(AllowedTargets.parse("::ffff:10.0.0.0/104").allows(new byte[] {11, 9, 9, 9}, 22)).isFalse();
        assertThat(AllowedTargets.parse("::ffff:0:0/96").allows(new byte[] {1, 2, 3, 4}, 22)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "10.0.0.0/8,", ",10.0.0.0/8", "10.0.0.0/8,,127.0.0.1", "10.0.0.0/33", "fd00::/129",
            "10.0.0.0/-1", "10.0.0.0/", "10.0.0.0/8:0", "10.0.0.0/8:65536", "10.0.0.0/8:22-21", "10.0.0.0/8:-22",
            "10.0.0.0/8:22-", "10.0.0.0/8:", "10.0.0.0/8:x", "10.0.0.0/8:22,23", "host.example", "host.example:22",
            "10.0.0.0/8 :22", "10.0.0.0/8\u0000", "10.0.0.０/8", "[10.0.0.0/8]:22", "[fd00::/8]22", "[fd00::/8", "[*]:22",
            "fd00::/8:22-", "10.0.0.0/8/8", "**", "*:0", "*:1-65536", "10.0.0.0/8:22:23", "\u202e10.0.0.0/8"})
    void malformedSettingsAreRefusedWithTheReason(String setting) {
        assertThatThrownBy(() -> AllowedTargets.parse(setting)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("\u0000");
    }

    @Test
    void theRefusalNamesTheEntry() {
        assertThatThrownBy(() -> AllowedTargets.parse("10.0.0.0/8, 10.0.0.0/33")).hasMessageContaining("'10.0.0.0/33'")
                .hasMessageContaining("0 to 32");
        assertThatThrownBy(() -> AllowedTargets.parse("10.0.0.0/8:22-21")).hasMessageContaining("FROM <= TO");
        assertThatThrownBy(() -> AllowedTargets.parse("")).hasMessageContaining("give * to allow every address");
        assertThatThrownBy(() -> AllowedTargets.parse("1".repeat(101))).hasMessageContaining("at most 100");
        assertThatThrownBy(() -> AllowedTargets.parse("10.0.0.0/8,,")).hasMessageContaining("empty entry");
    }
}

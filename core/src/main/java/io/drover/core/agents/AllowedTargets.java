package io.drover.core.agents;

import io.drover.core.net.AddressBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The addresses and ports the server may open SSH connections to for agent installs (the setting
 * {@code agent-install-allowed-targets}): a comma-separated list of entries, each an address block and optional ports.
 * <ul>
 *     <li>{@code *}: every address and port;</li>
 *     <li>{@code 10.0.0.0/8}, {@code 10.1.2.3}, {@code fd00::/8}: every port of the block (an address alone is a block of one);</li>
 *     <li>{@code 10.0.0.0/8:22}, {@code 10.0.0.0/8:2200-2299}, {@code [fd00::/8]:22}, {@code *:22}: those ports only
 *     (an IPv6 block with ports is written in brackets).</li>
 * </ul>
 * Only IP literals are parsed, here and in what is checked: names are resolved by the caller, which then connects to
 * the very address checked. An IPv4-mapped IPv6 address ({@code ::ffff:10.0.0.1}) is the IPv4 address it maps.
 */
public final class AllowedTargets {
    /** One entry: {@code block} null for every address. */
    private record Entry(AddressBlock block, int fromPort, int toPort) {
        boolean allows(byte[] address, int port) {
            return port >= fromPort && port <= toPort && (block == null || block.contains(address));
        }
    }

    private static final int MAX_ENTRY = 100;
    private static final byte[] MAPPED = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF};

    private final List<Entry> entries;
    private final String text;

    private AllowedTargets(List<Entry> entries, String text) {
        this.entries = List.copyOf(entries);
        this.text = text;
    }

    /** @throws IllegalArgumentException naming the entry that is not an address block with optional ports */
    public static AllowedTargets parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is empty: give * to allow every address, or CIDRs such as 10.0.0.0/8:22");
        }
        List<Entry> entries = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            entries.add(entry(part.strip()));
        }
        return new AllowedTargets(entries, text.strip());
    }

    /** Whether every address and port is allowed (the default): nothing needs to be resolved before connecting. */
    public boolean allowsEverything() {
        return entries.stream().anyMatch(e -> e.block() == null && e.fromPort() == 1 && e.toPort() == 65535);
    }

    /** Whether {@code address} (4 or 16 bytes) on {@code port} is allowed. */
    public boolean allows(byte[] address, int port) {
        byte[] candidate = unmapped(address);
        return entries.stream().anyMatch(e -> e.allows(candidate, port));
    }

    @Override
    public String toString() {
        return text;
    }

    private static Entry entry(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("has an empty entry (two commas, or one at an end)");
        }
        if (text.length() > MAX_ENTRY) {
            throw new IllegalArgumentException("has an entry of " + text.length() + " characters: at most " + MAX_ENTRY);
        }
        if (text.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new IllegalArgumentException("has an entry with a space, a control or a non-ASCII character");
        }
        String block = text;
        String ports = null;
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            if (end < 0 || (end + 1 < text.length() && text.charAt(end + 1) != ':')) {
                throw invalid(text);
            }
            block = text.substring(1, end);
            ports = end + 1 < text.length() ? text.substring(end + 2) : null;
            if (block.indexOf(':') < 0) {
                throw new IllegalArgumentException("'" + text + "': only an IPv6 block is written in brackets");
            }
        } else if (text.indexOf(':') >= 0 && text.indexOf(':') == text.lastIndexOf(':')) {
            block = text.substring(0, text.indexOf(':'));
            ports = text.substring(text.indexOf(':') + 1);
        }
        int[] range = ports == null ? new int[] {1, 65535} : ports(text, ports);
        if (block.equals("*")) {
            return new Entry(null, range[0], range[1]);
        }
        int slash = block.indexOf('/');
        byte[] network = AddressBlock.literal(slash < 0 ? block : block.substring(0, slash));
        if (network == null || block.startsWith("[")) {
            throw invalid(text);
        }
        int prefix = slash < 0 ? network.length * 8 : AddressBlock.number(block.substring(slash + 1), network.length * 8);
        if (prefix < 0) {
            throw new IllegalArgumentException("'" + text + "': the prefix must be 0 to " + network.length * 8);
        }
        if (network.length == 16 && prefix >= 96 && Arrays.equals(Arrays.copyOf(network, 12), MAPPED)) {
            network = Arrays.copyOfRange(network, 12, 16);
            prefix -= 96;
        }
        return new Entry(new AddressBlock(network, prefix), range[0], range[1]);
    }

    private static int[] ports(String entry, String ports) {
        if (ports.equals("*")) {
            return new int[] {1, 65535};
        }
        int dash = ports.indexOf('-');
        int from = AddressBlock.number(dash < 0 ? ports : ports.substring(0, dash), 65535);
        int to = dash < 0 ? from : AddressBlock.number(ports.substring(dash + 1), 65535);
        if (from < 1 || to < from) {
            throw new IllegalArgumentException("'" + entry + "': ports must be PORT, FROM-TO or * (1 to 65535, FROM <= TO)");
        }
        return new int[] {from, to};
    }

    private static IllegalArgumentException invalid(String entry) {
        return new IllegalArgumentException("'" + entry + "' is not *, an IPv4 or IPv6 address or CIDR block, with "
                + "optional :PORT, :FROM-TO or :* ([IPv6/N]:PORT)");
    }

    /** An IPv4-mapped IPv6 address as its IPv4 address; any other address as it is. */
    static byte[] unmapped(byte[] address) {
        if (address.length == 16 && Arrays.equals(Arrays.copyOf(address, 12), MAPPED)) {
            return Arrays.copyOfRange(address, 12, 16);
        }
        return address;
    }
}

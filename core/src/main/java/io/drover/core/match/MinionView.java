package io.drover.core.match;

import java.util.List;
import java.util.Map;

/** What targeting looks at: a minion's id and its grains (addresses come from the {@code ipv4} grain). */
public record MinionView(String id, Map<String, Object> grains) {

    public MinionView {
        grains = grains == null ? Map.of() : grains;
    }

    /** The minion's IPv4 addresses: the {@code ipv4} grain plus Drover's inventory address grain. */
    public List<String> addresses() {
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        if (grains.get("ipv4") instanceof List<?> list) {
            list.forEach(a -> out.add(String.valueOf(a)));
        }
        if (grains.get("drover_innerip") instanceof String ip) {
            out.add(ip);
        }
        return out;
    }
}

package io.drover.agent;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Salt's distribution grains ({@code os}, {@code os_family}, {@code osrelease}, {@code oscodename}) from the text of
 * {@code /etc/os-release}, named as a salt-minion names them so that targets like {@code -G os:Debian} reach
 * Drover agents and salt-minions alike.
 */
final class OsRelease {
    private static final Map<String, String> OS = Map.ofEntries(Map.entry("debian", "Debian"), Map.entry("ubuntu", "Ubuntu"),
            Map.entry("raspbian", "Raspbian"), Map.entry("linuxmint", "Mint"), Map.entry("centos", "CentOS"),
            Map.entry("rhel", "RedHat"), Map.entry("rocky", "Rocky"), Map.entry("almalinux", "AlmaLinux"),
            Map.entry("fedora", "Fedora"), Map.entry("amzn", "Amazon"), Map.entry("ol", "OEL"), Map.entry("sles", "SUSE"),
            Map.entry("opensuse-leap", "Leap"), Map.entry("opensuse-tumbleweed", "openSUSE Tumbleweed"),
            Map.entry("arch", "Arch"), Map.entry("alpine", "Alpine"), Map.entry("tencentos", "TencentOS"),
            Map.entry("openeuler", "openEuler"), Map.entry("kylin", "Kylin"));
    private static final Map<String, String> FAMILY = Map.ofEntries(Map.entry("Debian", "Debian"), Map.entry("Ubuntu", "Debian"),
            Map.entry("Raspbian", "Debian"), Map.entry("Mint", "Debian"), Map.entry("CentOS", "RedHat"),
            Map.entry("RedHat", "RedHat"), Map.entry("Rocky", "RedHat"), Map.entry("AlmaLinux", "RedHat"),
            Map.entry("Fedora", "RedHat"), Map.entry("Amazon", "RedHat"), Map.entry("OEL", "RedHat"),
            Map.entry("TencentOS", "RedHat"), Map.entry("openEuler", "RedHat"), Map.entry("SUSE", "Suse"),
            Map.entry("Leap", "Suse"), Map.entry("openSUSE Tumbleweed", "Suse"), Map.entry("Arch", "Arch"),
            Map.entry("Alpine", "Alpine"));

    private OsRelease() {
    }

    /** The grains the text gives; keys it cannot fill are left out. */
    static Map<String, Object> grains(String osRelease) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : osRelease.split("\n")) {
            int eq = line.indexOf('=');
            if (eq <= 0 || line.startsWith("#")) {
                continue;
            }
            String value = line.substring(eq + 1).strip();
            if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'")) && value.endsWith(value.substring(0, 1))) {
                value = value.substring(1, value.length() - 1);
            }
            fields.put(line.substring(0, eq).strip(), value);
        }
        Map<String, Object> grains = new LinkedHashMap<>();
        String id = fields.getOrDefault("ID", "").toLowerCase(Locale.ROOT);
        String name = fields.getOrDefault("NAME", "").strip();
        String os = OS.getOrDefault(id, name.isEmpty() ? null : name.split(" ")[0]);
        if (os != null) {
            grains.put("os", os);
            grains.put("os_family", FAMILY.getOrDefault(os, os));
        }
        if (fields.containsKey("VERSION_ID")) {
            grains.put("osrelease", fields.get("VERSION_ID"));
        }
        if (fields.containsKey("VERSION_CODENAME") && !fields.get("VERSION_CODENAME").isEmpty()) {
            grains.put("oscodename", fields.get("VERSION_CODENAME"));
        }
        return grains;
    }
}

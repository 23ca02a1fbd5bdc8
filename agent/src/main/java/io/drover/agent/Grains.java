package io.drover.agent;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Facts the agent reports about its host (Salt's grains): id, os, kernel, cpu arch, addresses, and where the host
 * sits in the inventory ({@code drover_innerip}, {@code drover_cloud_id}: the address the server links the agent
 * to a host by).
 */
public final class Grains {
    private Grains() {
    }

    /** The inventory address of this host: given, or the first non-loopback IPv4 address, or 127.0.0.1. */
    public record Placement(String innerIp, long cloudId) {
    }

    static Map<String, Object> collect(String id, Placement placement) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("id", id);
        String os = System.getProperty("os.name");
        g.put("kernel", os);
        g.put("os_type", os.toLowerCase(Locale.ROOT).contains("linux") ? "linux" : os.toLowerCase(Locale.ROOT));
        g.put("kernelrelease", System.getProperty("os.version"));
        String arch = System.getProperty("os.arch");
        g.put("cpuarch", arch.equals("amd64") ? "x86_64" : arch);
        g.put("num_cpus", Runtime.getRuntime().availableProcessors());
        try {
            g.putAll(OsRelease.grains(java.nio.file.Files.readString(java.nio.file.Path.of("/etc/os-release"))));
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            // not a Linux distribution with os-release: no os grains
        }
        List<String> ipv4 = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof java.net.Inet4Address) {
                        ipv4.add(address.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            // no addresses reported
        }
        g.put("ipv4", ipv4);
        String innerIp = placement.innerIp();
        for (int i = 0; innerIp == null && i < ipv4.size(); i++) { // a loop, not a stream: fewer classes in an idle agent
            innerIp = ipv4.get(i).startsWith("127.") ? null : ipv4.get(i);
        }
        g.put("drover_innerip", innerIp != null ? innerIp : "127.0.0.1");
        g.put("drover_cloud_id", placement.cloudId());
        try {
            g.put("host", InetAddress.getLocalHost().getHostName());
        } catch (java.io.IOException e) {
            g.put("host", id);
        }
        return g;
    }
}

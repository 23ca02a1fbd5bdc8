package io.drover.cli;

import io.drover.model.keys.MasterKeyInfo;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.core.agents.AgentInstallCommand;
import io.drover.core.agents.AgentPackageName;
import io.drover.model.agents.AgentPackageInfo;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Gathers what the one-line install command needs, before an enrollment token is created: the key pin of the
 * certificate the server's URL presents (verified by this client first), the master key's fingerprint, and the newest
 * agent package of each architecture with its sha256.
 *
 * @param command  the command
 * @param packages the packages it installs, one per architecture
 * @param warnings what the operator must know before using it (plain HTTP, a loopback address)
 */
record InstallCommandLine(AgentInstallCommand command, List<AgentPackageInfo> packages, List<String> warnings) {

    /**
     * @param serverUrl the API's URL as hosts reach it; null: the one this client uses
     * @param masters   the agent transport as hosts reach it; null: the server URL's host (port 4506)
     */
    static InstallCommandLine prepare(ClientOptions client, String serverUrl, String masters, String tokenFile) {
        String url = (serverUrl == null || serverUrl.isBlank() ? client.serverUrl() : serverUrl.strip()).replaceAll("/+$", "");
        String host = host(url);
        List<String> warnings = new ArrayList<>();
        String pin = null;
        if (url.regionMatches(true, 0, "https://", 0, 8)) {
            pin = new ApiClient(url, null, client.caFile()).keyPin();
        } else {
            warnings.add("warning: " + url + " is plain HTTP: the enrollment token and the package cross the network in clear and"
                    + " nothing proves the package comes from this server; serve the API over HTTPS (tls-cert and tls-key)");
        }
        if (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]")) {
            warnings.add("warning: the command names " + host + ", which other hosts do not reach: give --server-url (and"
                    + " --master) with an address they reach");
        }
        String finger = client.client().get("/api/v1/master", MasterKeyInfo.class).fingerprint();
        List<AgentPackageInfo> newest = newestPerArch(client.client().get("/api/v1/agent-packages",
                new TypeReference<List<AgentPackageInfo>>() { }));
        if (newest.isEmpty()) {
            throw new CliException("the server holds no agent package to install: upload one with drover agent-package upload"
                    + " FILE (a distribution's own are registered when its server starts)");
        }
        List<AgentInstallCommand.Offer> offers = newest.stream().map(p -> new AgentInstallCommand.Offer(
                new AgentPackageName(p.version(), p.arch()), p.sha256())).toList();
        try {
            return new InstallCommandLine(new AgentInstallCommand(url, pin, offers, masters == null ? host : masters.strip(),
                    finger, tokenFile), newest, List.copyOf(warnings));
        } catch (IllegalArgumentException e) {
            throw new CliException("cannot write the install command: " + e.getMessage());
        }
    }

    private static String host(String url) {
        try {
            String host = URI.create(url).getHost();
            if (host == null || !url.matches("(?i)https?://.*")) {
                throw new IllegalArgumentException("no host");
            }
            return host;
        } catch (IllegalArgumentException e) {
            throw new CliException("'" + url + "' is not an http:// or https:// URL with a host (--server-url)");
        }
    }

    /** The newest package of each architecture, by version order. */
    static List<AgentPackageInfo> newestPerArch(List<AgentPackageInfo> list) {
        Map<String, AgentPackageInfo> newest = new TreeMap<>(Comparator.comparingInt(AgentPackageName.ARCHES::indexOf));
        for (AgentPackageInfo p : list) {
            if (!AgentPackageName.ARCHES.contains(p.arch())) {
                continue;
            }
            newest.merge(p.arch(), p, (a, b) -> new AgentPackageName(a.version(), a.arch()).semver()
                    .compareTo(new AgentPackageName(b.version(), b.arch()).semver()) >= 0 ? a : b);
        }
        return List.copyOf(newest.values());
    }
}

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.agents.AgentInfo;
import io.drover.model.agents.AgentLinkRequest;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.model.agents.LinkConflict;
import io.drover.cli.Output.Column;
import io.drover.core.packages.Version;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drover agent list|show|grains|link}: the agents the server knows, and an admin's link of an agent to a host. ({@code drover agent --master …} runs an
 * agent; the launcher routes that form before this command tree is built.)
 */
@Command(name = "agent", description = "Agents: list, show, grains, link, install-remote (over SSH), installs, host-keys, "
        + "host-key forget, upgrade, upgrades. "
        + "To run one: drover agent --master HOST --id ID.",
        subcommands = {AgentCommand.ListAgents.class, AgentCommand.Show.class, AgentCommand.Grains.class, AgentCommand.Link.class,
                AgentInstallCommand.InstallRemote.class, AgentInstallCommand.Installs.class, AgentInstallCommand.HostKeys.class,
                AgentInstallCommand.HostKey.class, AgentUpgradeCommand.Upgrade.class,
                AgentUpgradeCommand.Upgrades.class, AgentUpgradeCommand.Cancel.class})
public final class AgentCommand {
    static final List<Column<AgentInfo>> COLUMNS = columns(null);

    /** The columns of an agent; {@code newest}: the newest agent package version stored (null: not known). */
    static List<Column<AgentInfo>> columns(Version newest) {
        return List.of(Column.of("ID", AgentInfo::id), Column.of("HOST", AgentInfo::bkHostId),
                Column.of("BIZ", AgentInfo::bkBizId), Column.of("IP", AgentInfo::innerIp), Column.of("KEY", AgentInfo::keyState),
                new Column<>("ONLINE", row -> row.online() ? "yes" : "no"),
                Column.of("MODE", AgentInfo::mode), new Column<>("VERSION", row -> version(row.version(), newest)),
                Column.of("LAST SEEN", AgentInfo::lastSeen), new Column<>("LINK", row -> link(row.linkConflict())));
    }

    /** An agent's version, with {@code (old: V available)} when it is older than the newest agent package stored. */
    static String version(String version, Version newest) {
        String shown = version == null ? "" : version;
        Version running = Version.tryParse(shown);
        return newest != null && running != null && running.compareTo(newest) < 0
                ? shown + " (old: " + newest + " available)" : shown;
    }

    /** The newest version among the agent packages the server stores (null: none). */
    static Version newestPackage(ApiClient client) {
        Version newest = null;
        for (AgentPackageInfo p : client.get("/api/v1/agent-packages", new TypeReference<List<AgentPackageInfo>>() { })) {
            Version v = Version.tryParse(String.valueOf(p.version()));
            if (v != null && (newest == null || v.compareTo(newest) > 0)) {
                newest = v;
            }
        }
        return newest;
    }

    /** Why an unlinked agent is not linked: {@code other_business}, or {@code host_has_agent (host N)}. */
    static String link(LinkConflict conflict) {
        if (conflict == null) {
            return "";
        }
        return (conflict.reason() == null ? "" : conflict.reason().wireName())
                + (conflict.bkHostId() != null ? " (host " + conflict.bkHostId() + ")" : "");
    }

    @Command(name = "list", description = "List agents: id, host id, key state, online, transport mode (drover: a key of "
            + "its own; salt: the shared key; salt-signed: the shared key, signed returns and events), version (marked old when "
            + "a newer agent package is stored: drover agent upgrade), last seen, "
            + "and why an agent is not linked to the host at its address (other_business, host_has_agent).")
    static final class ListAgents implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            List<AgentInfo> agents = client.client().get("/api/v1/agents", new TypeReference<>() { });
            client.output().print(agents, agents, columns(newestPackage(client.client())));
            return 0;
        }
    }

    @Command(name = "show", description = "Show one agent.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.output().printRow(client.client().get("/api/v1/agents/" + java.net.URLEncoder.encode(id,
                    java.nio.charset.StandardCharsets.UTF_8), AgentInfo.class), COLUMNS);
            return 0;
        }
    }

    @Command(name = "grains", description = "The facts (grains) an agent last reported.")
    static final class Grains implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/agents/" + java.net.URLEncoder.encode(id,
                    java.nio.charset.StandardCharsets.UTF_8) + "/grains", new TypeReference<java.util.Map<String, Object>>() { }));
            return 0;
        }
    }

    @Command(name = "link", description = "Link an agent to a host (admin): for an agent left unlinked by a link conflict.")
    static final class Link implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "ID") String id;
        @Parameters(index = "1", paramLabel = "HOST", description = "bk_host_id of the host.") long host;
        @Option(names = "--force", description = "Unlink the agent the host has now.") boolean force;
        @Option(names = "--move-business", description = "Move the agent to the host's business when it is another one.")
        boolean moveBusiness;

        @Override
        public Integer call() {
            AgentInfo agent = client.client().post("/api/v1/agents/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8)
                    + "/link", new AgentLinkRequest(host, force, moveBusiness), AgentInfo.class);
            client.output().printRow(agent, COLUMNS);
            return 0;
        }
    }
}

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.model.api.Page;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.HostMove;
import io.drover.model.subscriptions.HostPlugin;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover host list|show|move}. */
@Command(name = "host", description = "List, show and move hosts; see what is deployed on one.",
        subcommands = {HostCommand.ListHosts.class, HostCommand.Show.class, HostCommand.Move.class, HostCommand.Plugins.class})
public final class HostCommand {
    static final List<Column<Host>> COLUMNS = List.of(Column.of("ID", Host::bkHostId), Column.of("IP", Host::bkHostInnerip),
            Column.of("CLOUD", Host::bkCloudId), Column.of("NAME", Host::bkHostName), Column.of("BIZ", Host::bkBizId),
            Column.of("MODULES", Host::bkModuleIds), Column.of("OS", Host::osType), Column.of("ATTRIBUTES", Host::attributes));
    static final TypeReference<Page<Host>> PAGE = new TypeReference<>() { };

    /** Where in the topology to list: the narrowest node given wins. */
    static final class Node {
        @Option(names = "--biz", paramLabel = "ID", description = "Under this business.")
        Long biz;
        @Option(names = "--set", paramLabel = "ID", description = "Under this set.")
        Long set;
        @Option(names = "--module", paramLabel = "ID", description = "In this module.")
        Long module;
    }

    @Command(name = "list", description = "List hosts under a business, set or module.")
    static final class ListHosts implements Callable<Integer> {
        @Mixin ClientOptions client;
        @ArgGroup(exclusive = false) Node node = new Node();
        @Option(names = "--limit", description = "Page size (default 100, at most 10000).") Integer limit;
        @Option(names = "--offset", description = "Skip this many hosts.") Long offset;

        @Override
        public Integer call() {
            Page<Host> page = client.client().get("/api/v1/hosts" + ApiClient.query(ApiClient.params("bk_biz_id", node.biz,
                    "bk_set_id", node.set, "bk_module_id", node.module, "limit", limit, "offset", offset)), PAGE);
            client.output().print(page, page.items(), COLUMNS);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("%d of %d host(s)%n", page.items().size(), page.total());
            }
            return 0;
        }
    }

    @Command(name = "show", description = "Show one host.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "HOST_ID") long hostId;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/hosts/" + hostId, Host.class));
            return 0;
        }
    }

    @Command(name = "move", description = "Move a host to modules (--module, repeatable), or to a business's idle "
            + "module (--biz alone).")
    static final class Move implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "HOST_ID") long hostId;
        @Option(names = "--module", paramLabel = "ID", description = "Target module (repeat for several).")
        List<Long> modules;
        @Option(names = "--biz", paramLabel = "ID", description = "Target business.")
        Long biz;

        @Override
        public Integer call() {
            if ((modules == null || modules.isEmpty()) && biz == null) {
                throw new CliException("give --module (one or more) or --biz");
            }
            Host host = client.client().post("/api/v1/hosts/" + hostId + "/move",
                    new HostMove(biz, modules == null ? List.of() : modules), Host.class);
            client.output().printRow(host, COLUMNS);
            return 0;
        }
    }

    @Command(name = "plugins", description = "What subscriptions deployed on a host: plugin, version, status, port.")
    static final class Plugins implements Callable<Integer> {
        static final List<Column<HostPlugin>> COLUMNS = List.of(Column.of("PLUGIN", HostPlugin::plugin),
                Column.of("VERSION", HostPlugin::version), Column.of("STATUS", HostPlugin::status),
                Column.of("PORT", HostPlugin::port), Column.of("SUBSCRIPTION", HostPlugin::subscriptionId),
                Column.of("NAME", HostPlugin::subscription), Column.of("STEP", HostPlugin::stepId),
                Column.of("GROUP", HostPlugin::groupId));
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "HOST_ID") long host;

        @Override
        public Integer call() {
            List<HostPlugin> list = client.client().get("/api/v1/hosts/" + host + "/plugins", new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }
}

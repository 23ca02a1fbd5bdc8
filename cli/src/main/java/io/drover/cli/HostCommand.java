package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.Map;
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
    static final List<Column> COLUMNS = List.of(Column.of("ID", "bk_host_id"), Column.of("IP", "bk_host_innerip"),
            Column.of("CLOUD", "bk_cloud_id"), Column.of("NAME", "bk_host_name"), Column.of("BIZ", "bk_biz_id"),
            Column.of("MODULES", "bk_module_ids"), Column.of("OS", "os_type"), Column.of("ATTRIBUTES", "attributes"));

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
            JsonNode page = client.client().get("/api/v1/hosts" + ApiClient.query(ApiClient.params("bk_biz_id", node.biz,
                    "bk_set_id", node.set, "bk_module_id", node.module, "limit", limit, "offset", offset)));
            client.output().print(page, page.path("items"), COLUMNS);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("%d of %d host(s)%n", page.path("items").size(), page.path("total").asLong());
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
            client.output().printObject(client.client().get("/api/v1/hosts/" + hostId));
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
            JsonNode host = client.client().post("/api/v1/hosts/" + hostId + "/move", Map.of(
                    "bk_biz_id", biz == null ? "" : biz, "bk_module_ids", modules == null ? List.of() : modules)
                    .entrySet().stream().filter(e -> !"".equals(e.getValue()))
                    .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
            client.output().printRow(host, COLUMNS);
            return 0;
        }
    }

    @Command(name = "plugins", description = "What subscriptions deployed on a host: plugin, version, status, port.")
    static final class Plugins implements java.util.concurrent.Callable<Integer> {
        static final List<Column> COLUMNS = List.of(Column.of("PLUGIN", "plugin"), Column.of("VERSION", "version"),
                Column.of("STATUS", "status"), Column.of("PORT", "port"), Column.of("SUBSCRIPTION", "subscription_id"),
                Column.of("NAME", "subscription"), Column.of("STEP", "step_id"), Column.of("GROUP", "group_id"));
        @picocli.CommandLine.Mixin ClientOptions client;
        @picocli.CommandLine.Parameters(paramLabel = "HOST_ID") long host;

        @Override
        public Integer call() {
            com.fasterxml.jackson.databind.JsonNode list = client.client().get("/api/v1/hosts/" + host + "/plugins");
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }
}

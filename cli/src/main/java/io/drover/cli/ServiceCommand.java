package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code drover service list}. */
@Command(name = "service", description = "Service instances.", subcommands = {ServiceCommand.ListServices.class})
public final class ServiceCommand {

    @Command(name = "list", description = "List service instances under a business, set or module, or on a host.")
    static final class ListServices implements Callable<Integer> {
        @Mixin ClientOptions client;
        @ArgGroup(exclusive = false) HostCommand.Node node = new HostCommand.Node();
        @Option(names = "--host", paramLabel = "ID", description = "On this host.") Long host;
        @Option(names = "--limit", description = "Page size (default 100).") Integer limit;
        @Option(names = "--offset", description = "Skip this many.") Long offset;

        @Override
        public Integer call() {
            JsonNode page = client.client().get("/api/v1/service-instances" + ApiClient.query(ApiClient.params(
                    "bk_biz_id", node.biz, "bk_set_id", node.set, "bk_module_id", node.module, "bk_host_id", host,
                    "limit", limit, "offset", offset)));
            client.output().print(page, page.path("items"), List.of(Column.of("ID", "id"), Column.of("NAME", "name"),
                    Column.of("BIZ", "bk_biz_id"), Column.of("MODULE", "bk_module_id"), Column.of("HOST", "bk_host_id"),
                    Column.of("LABELS", "labels"), new Column("PORTS", row -> {
                        List<String> ports = new ArrayList<>();
                        row.path("processes").forEach(p -> ports.add(p.path("name").asText() + ":" + Output.text(p.path("ports"))));
                        return ports.isEmpty() ? "-" : String.join(" ", ports);
                    })));
            return 0;
        }
    }
}

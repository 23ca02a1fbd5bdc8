package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.api.Page;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
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
            Page<ServiceInstance> page = client.client().get("/api/v1/service-instances" + ApiClient.query(ApiClient.params(
                    "bk_biz_id", node.biz, "bk_set_id", node.set, "bk_module_id", node.module, "bk_host_id", host,
                    "limit", limit, "offset", offset)), new TypeReference<>() { });
            client.output().print(page, page.items(), List.of(Column.of("ID", ServiceInstance::id),
                    Column.of("NAME", ServiceInstance::name), Column.of("BIZ", ServiceInstance::bkBizId),
                    Column.of("MODULE", ServiceInstance::bkModuleId), Column.of("HOST", ServiceInstance::bkHostId),
                    Column.of("LABELS", ServiceInstance::labels), new Column<>("PORTS", row -> {
                        List<String> ports = new ArrayList<>();
                        for (ServiceProcess p : row.processes() == null ? List.<ServiceProcess>of() : row.processes()) {
                            ports.add(p.name() + ":" + Output.text(p.ports()));
                        }
                        return ports.isEmpty() ? "-" : String.join(" ", ports);
                    })));
            return 0;
        }
    }
}

package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code drover biz list}. */
@Command(name = "biz", description = "Businesses.", subcommands = {BizCommand.ListBiz.class})
public final class BizCommand {

    @Command(name = "list", description = "List businesses.")
    static final class ListBiz implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/businesses");
            client.output().print(list, list, List.of(Column.of("ID", "bk_biz_id"), Column.of("NAME", "bk_biz_name"),
                    Column.of("ATTRIBUTES", "attributes")));
            return 0;
        }
    }
}

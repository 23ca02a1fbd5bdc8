package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.inventory.Business;
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
            List<Business> list = client.client().get("/api/v1/businesses", new TypeReference<>() { });
            client.output().print(list, list, List.of(Column.of("ID", Business::bkBizId), Column.of("NAME", Business::bkBizName),
                    Column.of("ATTRIBUTES", Business::attributes)));
            return 0;
        }
    }
}

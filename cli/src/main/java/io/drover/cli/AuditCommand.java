package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code drover audit}: the newest mutations first. */
@Command(name = "audit", description = "Show the audit log of mutations, newest first (admin only).")
public final class AuditCommand implements Callable<Integer> {
    @Mixin ClientOptions client;
    @Option(names = "--limit", description = "How many entries (default 100).") Integer limit;
    @Option(names = "--offset", description = "Skip this many.") Long offset;

    @Override
    public Integer call() {
        JsonNode page = client.client().get("/api/v1/audit" + ApiClient.query(ApiClient.params("limit", limit, "offset", offset)));
        client.output().print(page, page.path("items"), List.of(Column.of("ID", "id"), Column.of("AT", "at"),
                Column.of("ACTOR", "actor"), Column.of("METHOD", "method"), Column.of("PATH", "path"),
                Column.of("STATUS", "status")));
        return 0;
    }
}

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.api.Page;
import io.drover.model.auth.AuditEntry;
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
        Page<AuditEntry> page = client.client().get("/api/v1/audit" + ApiClient.query(ApiClient.params("limit", limit,
                "offset", offset)), new TypeReference<>() { });
        client.output().print(page, page.items(), List.of(Column.of("ID", AuditEntry::id), Column.of("AT", AuditEntry::at),
                Column.of("ACTOR", AuditEntry::actor), Column.of("METHOD", AuditEntry::method), Column.of("PATH", AuditEntry::path),
                Column.of("STATUS", AuditEntry::status)));
        return 0;
    }
}

package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover enroll create|list|revoke}: enrollment tokens that admit new agents into a business. */
@Command(name = "enroll", description = "Enrollment tokens: agents started with one are accepted into its business.",
        subcommands = {EnrollCommand.Create.class, EnrollCommand.ListTokens.class, EnrollCommand.Revoke.class})
public final class EnrollCommand {
    static final List<Column> COLUMNS = List.of(Column.of("ID", "id"), Column.of("NAME", "name"),
            Column.of("BIZ", "bk_biz_id"), Column.of("USES", "uses"), Column.of("MAX USES", "max_uses"), Column.of("IDS", "id_glob"),
            Column.of("CREATED", "created_at"),
            Column.of("EXPIRES", "expires_at"), Column.of("REVOKED", "revoked_at"));

    @Command(name = "create", description = "Create an enrollment token; its secret is printed once.")
    static final class Create implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--biz", required = true, paramLabel = "ID", description = "Business the new agents' hosts join.")
        long biz;
        @Option(names = "--ttl-hours", paramLabel = "H", description = "Lifetime in hours (default: 24).")
        Long ttlHours;
        @Option(names = "--uses", paramLabel = "N", description = "Admit at most N agents (default: any number).")
        Long maxUses;
        @Option(names = "--id-glob", paramLabel = "GLOB", description = "Admit only agent ids matching GLOB, e.g. 'web-*' (default: any).")
        String idGlob;

        @Override
        public Integer call() {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            body.put("bk_biz_id", biz);
            body.put("ttl_hours", ttlHours);
            body.put("max_uses", maxUses);
            body.put("id_glob", idGlob);
            JsonNode created = client.client().post("/api/v1/enrollment-tokens", body);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("enrollment token %d '%s' for business %d created. Its secret, shown only now:%n%s%n"
                                + "start agents with: drover agent --master HOST --id ID --enroll-token <secret>%n",
                        created.path("info").path("id").asLong(), name, biz, created.path("token").asText());
            } else {
                client.output().printObject(created);
            }
            return 0;
        }
    }

    @Command(name = "list", description = "List enrollment tokens.")
    static final class ListTokens implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/enrollment-tokens");
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke an enrollment token (agents already accepted stay accepted).")
    static final class Revoke implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/enrollment-tokens/" + id);
            client.out().println("enrollment token " + id + " revoked");
            return 0;
        }
    }
}

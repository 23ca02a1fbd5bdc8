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

/** {@code drover token create|list|revoke}. */
@Command(name = "token", description = "API tokens (admin only).",
        subcommands = {TokenCommand.Create.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class})
public final class TokenCommand {
    static final List<Column> COLUMNS = List.of(Column.of("ID", "id"), Column.of("NAME", "name"), Column.of("ROLE", "role"),
            new Column("BUSINESSES", row -> row.path("bk_biz_ids").isEmpty() ? "all" : Output.text(row.path("bk_biz_ids"))),
            Column.of("CREATED", "created_at"), Column.of("EXPIRES", "expires_at"), Column.of("LAST USED", "last_used_at"),
            Column.of("REVOKED", "revoked_at"));

    @Command(name = "create", description = "Create a token; its secret is printed once.")
    static final class Create implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--role", required = true,
                description = "admin, operator or viewer; or alerts, which may only post alerts (for Alertmanager's webhook).")
        String role;
        @Option(names = "--ttl-hours", paramLabel = "HOURS", description = "Expire the token this many hours from now (default: never).")
        Integer ttlHours;
        @Option(names = "--biz", paramLabel = "ID", description = "Limit the token to this business (repeatable).")
        List<Long> biz;

        @Override
        public Integer call() {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            body.put("role", role);
            body.put("bk_biz_ids", biz == null ? List.of() : biz);
            if (ttlHours != null) {
                body.put("ttl_hours", ttlHours);
            }
            JsonNode created = client.client().post("/api/v1/tokens", body);
            if (client.output().format() == Output.Format.table) {
                JsonNode expires = created.path("info").path("expires_at");
                client.out().printf("token %d '%s' (%s) created%s. Its secret, shown only now:%n%s%n",
                        created.path("info").path("id").asLong(), name, role,
                        expires.isMissingNode() || expires.isNull() ? "" : ", expires " + expires.asText(), created.path("token").asText());
            } else {
                client.output().printObject(created);
            }
            return 0;
        }
    }

    @Command(name = "list", description = "List tokens.")
    static final class ListTokens implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            JsonNode list = client.client().get("/api/v1/tokens");
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke a token.")
    static final class Revoke implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") long id;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/tokens/" + id);
            client.out().println("token " + id + " revoked");
            return 0;
        }
    }
}

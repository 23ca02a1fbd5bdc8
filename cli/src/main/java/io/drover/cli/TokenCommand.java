package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.auth.CreatedToken;
import io.drover.model.auth.Role;
import io.drover.model.auth.TokenInfo;
import io.drover.model.auth.TokenRequest;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover token create|list|revoke}. */
@Command(name = "token", description = "API tokens (admin only).",
        subcommands = {TokenCommand.Create.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class})
public final class TokenCommand {
    static final List<Column<TokenInfo>> COLUMNS = List.of(Column.of("ID", TokenInfo::id), Column.of("NAME", TokenInfo::name),
            Column.of("ROLE", TokenInfo::role),
            new Column<>("BUSINESSES", row -> row.bkBizIds() == null || row.bkBizIds().isEmpty() ? "all" : Output.text(row.bkBizIds())),
            Column.of("CREATED", TokenInfo::createdAt), Column.of("EXPIRES", TokenInfo::expiresAt),
            Column.of("LAST USED", TokenInfo::lastUsedAt), Column.of("REVOKED", TokenInfo::revokedAt));

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
            Role parsed;
            try {
                parsed = Role.parse(role);
            } catch (IllegalArgumentException e) {
                throw new CliException("--role: " + e.getMessage());
            }
            CreatedToken created = client.client().post("/api/v1/tokens",
                    new TokenRequest(name, parsed, biz == null ? List.of() : biz, ttlHours), CreatedToken.class);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("token %d '%s' (%s) created%s. Its secret, shown only now:%n%s%n",
                        created.info().id(), name, role,
                        created.info().expiresAt() == null ? "" : ", expires " + Output.text(created.info().expiresAt()),
                        created.token());
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
            List<TokenInfo> list = client.client().get("/api/v1/tokens", new TypeReference<>() { });
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

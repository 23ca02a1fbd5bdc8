package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.cli.Output.Column;
import io.drover.model.secrets.SecretInfo;
import io.drover.model.secrets.SecretRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code drover secret set|list|delete}: a business's secrets, which subscription steps reference as
 * {@code {secret: NAME}} (docs/operations.md, "Secrets for plugins"). A value is read from a file or standard input, never
 * from the command line (which other users of the machine see), and never printed.
 */
@Command(name = "secret", description = "Secrets that subscription steps pass to plugins as {secret: NAME}.",
        subcommands = {SecretCommand.Set.class, SecretCommand.ListSecrets.class, SecretCommand.Delete.class})
public final class SecretCommand {
    static final List<Column<SecretInfo>> COLUMNS = List.of(Column.of("BIZ", SecretInfo::bkBizId),
            Column.of("NAME", SecretInfo::name), Column.of("SET BY", SecretInfo::updatedBy), Column.of("UPDATED", SecretInfo::updatedAt));

    @Command(name = "set", description = "Create or replace a secret; its value is read from --from-file, or from standard input.")
    static final class Set implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--biz", required = true, paramLabel = "ID", description = "Business the secret belongs to.")
        long biz;
        @Option(names = "--from-file", paramLabel = "FILE", description = "File holding the value ('-': standard input, the default).")
        String file = "-";

        @Override
        public Integer call() throws IOException {
            byte[] raw = file.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(file));
            String value = new String(raw, StandardCharsets.UTF_8);
            // a value typed or echoed ends with one newline that is not part of it
            value = value.endsWith("\r\n") ? value.substring(0, value.length() - 2)
                    : value.endsWith("\n") ? value.substring(0, value.length() - 1) : value;
            client.client().put("/api/v1/businesses/" + biz + "/secrets/" + name, new SecretRequest(value), SecretInfo.class);
            client.out().println("secret " + name + " of business " + biz + " set; reference it in a step's context as "
                    + "{secret: " + name + "}");
            return 0;
        }
    }

    @Command(name = "list", description = "List a business's secrets (names and times, never values).")
    static final class ListSecrets implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--biz", required = true, paramLabel = "ID", description = "Business.")
        long biz;

        @Override
        public Integer call() {
            List<SecretInfo> list = client.client().get("/api/v1/businesses/" + biz + "/secrets", new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete a secret that no subscription references.")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--biz", required = true, paramLabel = "ID", description = "Business.")
        long biz;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/businesses/" + biz + "/secrets/" + name);
            client.out().println("secret " + name + " of business " + biz + " deleted");
            return 0;
        }
    }
}

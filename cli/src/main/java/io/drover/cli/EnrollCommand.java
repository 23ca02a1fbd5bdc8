package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.agents.CreatedEnrollmentToken;
import io.drover.model.agents.EnrollmentTokenInfo;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.cli.Output.Column;
import io.drover.core.agents.AgentInstallCommand;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover enroll create|list|revoke}: enrollment tokens that admit new agents into a business. */
@Command(name = "enroll", description = "Enrollment tokens: agents started with one are accepted into its business.",
        subcommands = {EnrollCommand.Create.class, EnrollCommand.ListTokens.class, EnrollCommand.Revoke.class})
public final class EnrollCommand {
    static final List<Column<EnrollmentTokenInfo>> COLUMNS = List.of(Column.of("ID", EnrollmentTokenInfo::id),
            Column.of("NAME", EnrollmentTokenInfo::name), Column.of("BIZ", EnrollmentTokenInfo::bkBizId),
            Column.of("USES", EnrollmentTokenInfo::uses), Column.of("MAX USES", EnrollmentTokenInfo::maxUses),
            Column.of("IDS", EnrollmentTokenInfo::idGlob), Column.of("CREATED", EnrollmentTokenInfo::createdAt),
            Column.of("EXPIRES", EnrollmentTokenInfo::expiresAt), Column.of("REVOKED", EnrollmentTokenInfo::revokedAt));

    /** What {@code enroll create --install-command -o json} prints: the created token and the command that installs. */
    record CreatedWithInstall(EnrollmentTokenInfo info, String token, String installCommand, String tokenFile,
                              List<String> warnings) {
    }

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
        @Option(names = "--install-command", description = "Also print a one-line command that installs an agent on a Linux host "
                + "(the server's newest agent package, downloaded over HTTPS pinned to the server's certificate key).")
        boolean installCommand;
        @Option(names = "--server-url", paramLabel = "URL", description = "The server's URL as hosts reach it, for the install "
                + "command (default: --server).")
        String serverUrl;
        @Option(names = "--master", paramLabel = "HOST[:PORT][,HOST[:PORT]...]", description = "The agent transport as hosts reach "
                + "it, for the install command (default: the host of the server URL, port 4506).")
        String master;
        @Option(names = "--token-file", paramLabel = "PATH", description = "Where hosts keep the token, for the install command "
                + "(default: " + AgentInstallCommand.DEFAULT_TOKEN_FILE + ").")
        String tokenFile = AgentInstallCommand.DEFAULT_TOKEN_FILE;

        @Override
        public Integer call() {
            if (!installCommand && (serverUrl != null || master != null || !tokenFile.equals(AgentInstallCommand.DEFAULT_TOKEN_FILE))) {
                throw new CliException("--server-url, --master and --token-file are for --install-command");
            }
            // everything the command needs is gathered first: a failure creates no token
            InstallCommandLine install = installCommand ? InstallCommandLine.prepare(client, serverUrl, master, tokenFile) : null;
            CreatedEnrollmentToken created = client.client().post("/api/v1/enrollment-tokens",
                    new EnrollmentTokenRequest(name, biz, ttlHours, maxUses, idGlob), CreatedEnrollmentToken.class);
            if (client.output().format() != Output.Format.table) {
                client.output().printObject(install == null ? created : new CreatedWithInstall(created.info(), created.token(),
                        install.command().line(), tokenFile, install.warnings()));
                return 0;
            }
            client.out().printf("enrollment token %d '%s' for business %d created. Its secret, shown only now:%n%s%n",
                    created.info().id(), name, biz, created.token());
            if (install == null) {
                client.out().printf("start agents with: drover agent --master HOST --id ID --enroll-token-file FILE%n");
                return 0;
            }
            client.out().printf("%nTo install an agent on a Linux host, as root there: put the token in %s, readable by root"
                            + " only:%n  (umask 077; rm -f %s; cat > %s)   # paste the token, Enter, Ctrl-D%n"
                            + "then run the command below. It downloads drover-agent %s from %s%s, checks its sha256"
                            + " and runs its installer (the token stays in the file, out of every command line and URL):%n",
                    tokenFile, tokenFile, tokenFile, versions(install), install.command().serverUrl(),
                    install.command().keyPin() == null ? "" : ", accepting only the key of its certificate");
            install.warnings().forEach(w -> client.out().println(w));
            client.out().println(install.command().line());
            client.out().flush();
            return 0;
        }

        /** "1.2.0 (x86_64, aarch64)", or each version with its architecture when they differ. */
        private static String versions(InstallCommandLine install) {
            java.util.Set<String> versions = new java.util.LinkedHashSet<>();
            install.packages().forEach(p -> versions.add(p.version()));
            return versions.size() == 1 ? versions.iterator().next() + " (" + String.join(", ",
                    install.packages().stream().map(p -> p.arch()).toList()) + ")"
                    : String.join(", ", install.packages().stream().map(p -> p.version() + " for " + p.arch()).toList());
        }
    }

    @Command(name = "list", description = "List enrollment tokens.")
    static final class ListTokens implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            List<EnrollmentTokenInfo> list = client.client().get("/api/v1/enrollment-tokens", new TypeReference<>() { });
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

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.agents.AgentPackageInfo;
import io.drover.cli.Output.Column;
import io.drover.core.agents.AgentPackageException;
import io.drover.core.agents.AgentPackageName;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code drover agent-package upload|list|delete}: the agent packages the server hands out to hosts. */
@Command(name = "agent-package", description = "Agent packages (drover-agent-<version>-linux-<arch>.tar.gz) the server hands out to hosts.",
        subcommands = {AgentPackageCommand.Upload.class, AgentPackageCommand.ListPackages.class, AgentPackageCommand.Delete.class})
public final class AgentPackageCommand {
    static final List<Column<AgentPackageInfo>> COLUMNS = List.of(Column.of("VERSION", AgentPackageInfo::version),
            Column.of("OS", AgentPackageInfo::os), Column.of("ARCH", AgentPackageInfo::arch),
            Column.of("SIZE", AgentPackageInfo::sizeBytes), new Column<>("SHA256", p -> Output.shortHash(p.sha256())),
            Column.of("UPLOADED", AgentPackageInfo::uploadedAt), Column.of("BY", AgentPackageInfo::uploadedBy));

    @Command(name = "upload", description = "Upload an agent package (admin); its name must be drover-agent-<version>-linux-<arch>.tar.gz.")
    static final class Upload implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "FILE") Path file;

        @Override
        public Integer call() {
            if (!Files.isRegularFile(file)) {
                throw new CliException(file + " is not a file");
            }
            String name = file.getFileName().toString();
            try {
                AgentPackageName.ofFileName(name);
            } catch (AgentPackageException e) {
                throw new CliException(e.getMessage() + " (rename it, or build it with that name)");
            }
            AgentPackageInfo stored = client.client().postFile("/api/v1/agent-packages?file_name="
                    + URLEncoder.encode(name, StandardCharsets.UTF_8), "application/gzip", file, AgentPackageInfo.class);
            if (client.output().format() == Output.Format.table) {
                client.out().printf("%s is stored (sha256 %s, uploaded by %s at %s)%n", stored.fileName(),
                        stored.sha256(), stored.uploadedBy(), Output.text(stored.uploadedAt()));
            } else {
                client.output().printObject(stored);
            }
            return 0;
        }
    }

    @Command(name = "list", description = "List agent packages.")
    static final class ListPackages implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            List<AgentPackageInfo> list = client.client().get("/api/v1/agent-packages", new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete an agent package (admin); hosts that installed it keep it.")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(index = "0", paramLabel = "VERSION") String version;
        @Parameters(index = "1", paramLabel = "ARCH", description = "x86_64 or aarch64.") String arch;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/agent-packages/" + segment(version) + "/" + segment(arch));
            client.out().println("agent package " + version + " for " + arch + " deleted");
            return 0;
        }
    }

    /** A path segment: everything but letters, digits and . _ - percent-encoded ('+' included, which a version may hold). */
    static String segment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}

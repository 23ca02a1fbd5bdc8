package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.packages.RegistryInfo;
import io.drover.model.packages.RegistryRequest;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover registry add|list|remove}: where addons come from, in lookup order. */
@Command(name = "registry", description = "Addon registries (local directory, HTTP index, Git), searched in order.",
        subcommands = {RegistryCommand.Add.class, RegistryCommand.ListRegistries.class, RegistryCommand.Remove.class})
public final class RegistryCommand {
    static final List<Column<RegistryInfo>> COLUMNS = List.of(Column.of("#", RegistryInfo::position),
            Column.of("NAME", RegistryInfo::name), Column.of("TYPE", RegistryInfo::type), Column.of("URL", RegistryInfo::url),
            Column.of("PATH", RegistryInfo::path), Column.of("REF", RegistryInfo::ref),
            Column.of("TRANSPORT", r -> r.insecure() ? "insecure" : ""));

    enum Type { local, http, git }

    @Command(name = "add", description = "Add a registry at the end of the lookup order.")
    static final class Add implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;
        @Option(names = "--type", required = true, description = "local, http or git.") Type type;
        @Option(names = "--url", required = true, paramLabel = "URL",
                description = "Directory on the server (local), index URL (http) or repository URL (git).") String url;
        @Option(names = "--path", paramLabel = "PATH", description = "Git: the directory holding the addons.") String path;
        @Option(names = "--ref", paramLabel = "REF", description = "Git: branch, tag or commit (default: HEAD).") String ref;
        @Option(names = "--insecure", description = "Accept reading the registry in clear over the network (http:// or"
                + " git:// to another host): anyone on the path could change what it serves. Refused without this.")
        boolean insecure;

        @Override
        public Integer call() {
            RegistryInfo added = client.client().post("/api/v1/registries", new RegistryRequest(name, type.name(), url, path, ref,
                    insecure ? Boolean.TRUE : null),
                    RegistryInfo.class);
            client.output().printRow(added, COLUMNS);
            return 0;
        }
    }

    @Command(name = "list", description = "List registries in lookup order (the package store, 'store', comes first).")
    static final class ListRegistries implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            List<RegistryInfo> list = client.client().get("/api/v1/registries", new TypeReference<>() { });
            client.output().print(list, list, COLUMNS);
            return 0;
        }
    }

    @Command(name = "remove", description = "Remove a registry.")
    static final class Remove implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/registries/" + name);
            client.out().println("registry " + name + " removed");
            return 0;
        }
    }
}

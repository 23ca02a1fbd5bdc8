package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.inventory.ImportProgressLine;
import io.drover.model.inventory.ImportResult;
import io.drover.model.inventory.Topology;
import io.drover.model.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover inventory import|export|tree}: the whole CMDB at once. */
@Command(name = "inventory", description = "Import, export and browse the inventory (CMDB).",
        subcommands = {InventoryCommand.Import.class, InventoryCommand.Export.class, InventoryCommand.Tree.class})
public final class InventoryCommand {

    @Command(name = "import", description = "Import a YAML or JSON inventory document in one transaction: "
            + "a bad record anywhere imports nothing. Importing the same file twice changes nothing.")
    static final class Import implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "FILE", description = "Inventory document (.yaml, .yml or .json).")
        Path file;

        @Override
        public Integer call() {
            byte[] body;
            try {
                body = Files.readAllBytes(file);
            } catch (IOException e) {
                throw new CliException("cannot read " + file + ": " + e.getMessage());
            }
            String name = file.getFileName().toString();
            String type = name.endsWith(".json") ? "application/json" : "application/yaml";
            client.err().printf("importing %s (%.1f MB) in one transaction: all of it or, on any error, nothing…%n", file,
                    body.length / 1e6);
            client.err().flush();
            long started = System.nanoTime();
            boolean table = client.output().format() == Output.Format.table;
            long[] lastTenth = {-1};
            ImportResult result = client.client().postWithProgress("/api/v1/inventory/import", type, body,
                    ImportProgressLine.class, ImportResult.class, progress -> {
                long written = progress.written();
                long total = Math.max(1, progress.total());
                long tenth = written * 10 / total;
                if (table && tenth > lastTenth[0]) { // a line per tenth of the way
                    lastTenth[0] = tenth;
                    client.err().printf("  %,d of %,d records written (%d%%)%n", written, total, written * 100 / total);
                    client.err().flush();
                }
            });
            Output out = client.output();
            if (out.format() == Output.Format.table) {
                client.out().printf("imported %s in %.1f s: %d created, %d updated, %d unchanged%n", file,
                        (System.nanoTime() - started) / 1e9,
                        result.created(), result.updated(), result.unchanged());
            } else {
                out.printObject(result);
            }
            return 0;
        }
    }

    @Command(name = "export", description = "Export the inventory as one document (YAML unless -o json).")
    static final class Export implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--biz", paramLabel = "ID", description = "Only this business.")
        Long bizId;
        @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Write to FILE instead of standard output.")
        Path file;

        @Override
        public Integer call() throws IOException {
            // The document as the server wrote it, field for field: an export is read back by an import, so nothing in
            // it (a field a newer server added) may be dropped on the way through.
            JsonNode doc = client.client().get("/api/v1/inventory/export" + ApiClient.query(ApiClient.params("bk_biz_id", bizId)),
                    JsonNode.class);
            String text = client.output().format() == Output.Format.json ? doc.toPrettyString() + "\n"
                    : Json.yaml().writeValueAsString(doc);
            if (file != null) {
                Files.writeString(file, text);
                client.out().println("wrote " + file);
            } else {
                client.out().print(text);
                client.out().flush();
            }
            return 0;
        }
    }

    @Command(name = "tree", description = "Show a business's sets and modules with host counts.")
    static final class Tree implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "BIZ_ID", description = "Business id.")
        long bizId;

        @Override
        public Integer call() {
            Topology tree = client.client().get("/api/v1/businesses/" + bizId + "/topology", Topology.class);
            Output out = client.output();
            if (out.format() != Output.Format.table) {
                out.printObject(tree);
                return 0;
            }
            client.out().printf("%s (biz %d)%n", tree.bkBizName(), tree.bkBizId());
            List<Topology.SetTree> sets = tree.sets() == null ? List.of() : tree.sets();
            for (int i = 0; i < sets.size(); i++) {
                Topology.SetTree set = sets.get(i);
                boolean lastSet = i == sets.size() - 1;
                client.out().printf("%s %s (set %d)%n", lastSet ? "└──" : "├──", set.bkSetName(), set.bkSetId());
                List<Topology.ModuleLeaf> modules = set.modules() == null ? List.of() : set.modules();
                for (int j = 0; j < modules.size(); j++) {
                    Topology.ModuleLeaf m = modules.get(j);
                    client.out().printf("%s   %s %s (module %d%s): %d host(s), %d service instance(s)%n",
                            lastSet ? " " : "│", j == modules.size() - 1 ? "└──" : "├──", m.bkModuleName(),
                            m.bkModuleId(), m.idle() ? ", idle" : "", m.hostCount(), m.serviceInstanceCount());
                }
            }
            return 0;
        }
    }
}

package io.drover.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code drover agent list|show|grains}: the agents the server knows. ({@code drover agent --master …} runs an
 * agent; the launcher routes that form before this command tree is built.)
 */
@Command(name = "agent", description = "Agents: list, show, grains. To run one: drover agent --master HOST --id ID.",
        subcommands = {AgentCommand.ListAgents.class, AgentCommand.Show.class, AgentCommand.Grains.class})
public final class AgentCommand {
    static final List<Column> COLUMNS = List.of(Column.of("ID", "id"), Column.of("HOST", "bk_host_id"),
            Column.of("BIZ", "bk_biz_id"), Column.of("IP", "inner_ip"), Column.of("KEY", "key_state"),
            new Column("ONLINE", row -> row.path("online").asBoolean() ? "yes" : "no"),
            Column.of("MODE", "mode"), Column.of("VERSION", "version"), Column.of("LAST SEEN", "last_seen"));

    @Command(name = "list", description = "List agents: id, host id, key state, online, transport mode (drover: a key of "
            + "its own; salt: the shared key; salt-signed: the shared key, signed returns and events), version, last seen.")
    static final class ListAgents implements Callable<Integer> {
        @Mixin ClientOptions client;

        @Override
        public Integer call() {
            JsonNode agents = client.client().get("/api/v1/agents");
            client.output().print(agents, agents, COLUMNS);
            return 0;
        }
    }

    @Command(name = "show", description = "Show one agent.")
    static final class Show implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.output().printRow(client.client().get("/api/v1/agents/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8)), COLUMNS);
            return 0;
        }
    }

    @Command(name = "grains", description = "The facts (grains) an agent last reported.")
    static final class Grains implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.output().printObject(client.client().get("/api/v1/agents/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8) + "/grains"));
            return 0;
        }
    }
}

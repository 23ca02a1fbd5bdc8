package io.drover.cli;

import io.drover.model.Json;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code drover events --tag GLOB}: prints events live as they happen. */
@Command(name = "events", description = "Print events live (Ctrl-C to stop).")
public final class EventsCommand implements Callable<Integer> {
    @Mixin ClientOptions client;
    @Option(names = "--tag", paramLabel = "GLOB", description = "Only tags matching this glob, e.g. 'drover/inventory/*'.")
    String tag;
    @Option(names = "--since", paramLabel = "ID", description = "First replay stored events after this event id (0 = all kept).")
    Long since;

    @Override
    public Integer call() {
        Runnable following = () -> {
            client.err().println("following events" + (tag == null ? "" : " matching " + tag) + " (Ctrl-C to stop)");
            client.err().flush();
        };
        client.client().stream("/api/v1/events" + ApiClient.query(ApiClient.params("tag", tag, "since", since)), following, event -> {
            switch (client.output().format()) {
                case json -> client.out().println(event.toString());
                case yaml -> client.out().print("---\n" + Output.yaml(event));
                case table -> client.out().printf("%s  #%d  %s  %s%n", event.path("time").asText(), event.path("id").asLong(),
                        event.path("tag").asText(), summary(event));
            }
            client.out().flush();
        });
        return 0;
    }

    private static String summary(com.fasterxml.jackson.databind.JsonNode event) {
        var data = event.path("data");
        if (data.has("kind") && data.has("id")) {
            return data.path("kind").asText() + " " + data.path("id").asText() + " (biz " + data.path("bk_biz_id").asText() + ")";
        }
        try {
            return Json.json().writeValueAsString(data);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return data.toString();
        }
    }
}

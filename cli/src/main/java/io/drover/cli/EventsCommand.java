package io.drover.cli;

import io.drover.model.events.Event;
import java.util.Map;
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
        client.client().stream("/api/v1/events" + ApiClient.query(ApiClient.params("tag", tag, "since", since)), Event.class,
                following, event -> {
            switch (client.output().format()) {
                case json -> client.out().println(Output.oneLine(event));
                case yaml -> client.out().print("---\n" + Output.yaml(Output.tree(event)));
                case table -> client.out().printf("%s  #%d  %s  %s%n", Output.text(event.time()), event.id(),
                        event.tag(), summary(event));
            }
            client.out().flush();
        });
        return 0;
    }

    static String summary(Event event) {
        Map<String, Object> data = event.data() == null ? Map.of() : event.data();
        if (data.containsKey("kind") && data.containsKey("id")) {
            return data.get("kind") + " " + data.get("id") + " (biz " + (data.containsKey("bk_biz_id") ? data.get("bk_biz_id") : "") + ")";
        }
        return Output.oneLine(data);
    }
}

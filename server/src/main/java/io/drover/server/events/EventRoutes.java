package io.drover.server.events;

import io.drover.server.errors.DomainException;
import io.drover.core.match.Glob;
import io.drover.model.Json;
import io.drover.model.auth.Role;
import io.drover.model.events.Event;
import io.drover.server.auth.Principal;
import io.drover.server.http.ApiException;
import io.drover.server.http.HttpApi;
import io.drover.server.http.Scope;
import io.drover.server.http.Params;
import io.drover.server.http.Route;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.sse.SseClient;
import io.javalin.http.sse.SseHandler;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code GET /api/v1/events?tag=<glob>&since=<id>}: a Server-Sent Events stream of committed events whose tag
 * matches. With {@code since} (or the {@code Last-Event-ID} header) stored events after that id are replayed
 * first, so a client that reconnects misses nothing. A token limited to some businesses sees only their events.
 */
public final class EventRoutes {
    private static final int QUEUE = 10_000;
    private static final int REPLAY_LIMIT = 100_000;
    private static final long KEEPALIVE_SECONDS = 15;

    private final EventBus bus;
    private final EventStore store;

    public EventRoutes(EventBus bus, EventStore store) {
        this.bus = bus;
        this.store = store;
    }

    public void register(HttpApi api) {
        api.add(new Route(HandlerType.GET, HttpApi.API + "/events", Role.VIEWER, Scope.BUSINESS,
                "Stream events as Server-Sent Events; ?tag=<glob> filters by tag, ?since=<id> replays stored events after that id",
                null, Route.Shape.EVENT_STREAM, null, 200, this::stream));
    }

    private void stream(Context ctx) throws Exception {
        String tagParam = ctx.queryParam("tag");
        Glob glob;
        try {
            glob = Glob.compile(tagParam == null || tagParam.isEmpty() ? "*" : tagParam);
        } catch (IllegalArgumentException e) {
            throw DomainException.invalid("tag", e.getMessage());
        }
        long since = Params.bounded(ctx, "since", -1, 0, Long.MAX_VALUE);
        String lastEventId = ctx.header("Last-Event-ID");
        if (since < 0 && lastEventId != null && lastEventId.matches("\\d{1,18}")) {
            since = Long.parseLong(lastEventId);
        }
        String accept = ctx.header("Accept");
        if (accept == null || !accept.contains("text/event-stream")) {
            throw new ApiException(406, "not_acceptable", "this route streams Server-Sent Events: send the header "
                    + "'Accept: text/event-stream'");
        }
        Principal principal = HttpApi.principal(ctx);
        long replayFrom = since;
        new SseHandler(client -> follow(client, glob, principal, replayFrom)).handle(ctx);
    }

    private void follow(SseClient client, Glob glob, Principal principal, long since) {
        BlockingQueue<Event> queue = new LinkedBlockingQueue<>(QUEUE);
        AtomicBoolean overflowed = new AtomicBoolean();
        // a stream that may show job returns gets those other servers of a cluster store, too
        try (AutoCloseable peerReturns = glob.mayMatchStartingWith("salt/job/") ? bus.wantPeerReturns() : () -> { };
             AutoCloseable ignored = bus.subscribe(e -> glob.matches(e.tag()) && visible(principal, e), e -> {
            if (!queue.offer(e)) {
                overflowed.set(true);
            }
        })) {
            long last = since;
            // What the replay sent, so that the live events queued meanwhile are not sent twice. Live events are
            // otherwise all sent: in a cluster a peer's event may come after one with a higher id.
            java.util.Set<Long> replayed = new java.util.HashSet<>();
            if (since >= 0) {
                for (Event event : store.after(since, glob, REPLAY_LIMIT)) {
                    if (visible(principal, event)) {
                        send(client, event);
                    }
                    replayed.add(event.id());
                    last = event.id();
                }
            }
            client.sendComment("subscribed to " + glob);
            while (!client.terminated()) {
                Event event = queue.poll(KEEPALIVE_SECONDS, TimeUnit.SECONDS);
                if (overflowed.get()) {
                    client.sendEvent("drover/stream/overflow", "{\"detail\":\"the client fell " + QUEUE
                            + " events behind; reconnect with since=" + last + "\"}", "");
                    break;
                }
                if (event == null) {
                    client.sendComment("keepalive");
                } else if (!replayed.contains(event.id())) {
                    send(client, event);
                    last = Math.max(last, event.id());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the client went away; nothing to clean beyond the subscription
        }
    }

    private static void send(SseClient client, Event event) {
        try {
            client.sendEvent(event.tag(), Json.json().writeValueAsString(event), Long.toString(event.id()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean visible(Principal principal, Event event) {
        if (principal.allBusinesses()) {
            return true;
        }
        Object biz = event.data().get("bk_biz_id");
        return biz instanceof Number n && principal.mayTouch(n.longValue());
    }
}

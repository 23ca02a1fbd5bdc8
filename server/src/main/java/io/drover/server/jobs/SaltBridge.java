package io.drover.server.jobs;

import io.drover.server.events.EventStore;
import io.drover.server.keys.KeyStore;
import io.drover.transport.master.KeyDecision;
import io.drover.transport.master.MasterHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** Connects the Salt master to the control plane: keys from the key store, returns to jobs, events to the bus. */
public final class SaltBridge implements MasterHandler {
    private final KeyStore keys;
    private final JobService jobs;
    private final Jdbi jdbi;
    private final EventStore events;

    public SaltBridge(KeyStore keys, JobService jobs, Jdbi jdbi, EventStore events) {
        this.keys = keys;
        this.jobs = jobs;
        this.jdbi = jdbi;
        this.events = events;
    }

    @Override
    public KeyDecision decideKey(String id, String publicKeyPem, Map<?, ?> authLoad) {
        return keys.decide(id, publicKeyPem);
    }

    @Override
    public String acceptedKey(String id) {
        return keys.acceptedKey(id);
    }

    @Override
    public Object onReturn(String id, Map<?, ?> load) {
        return jobs.onReturn(id, load);
    }

    @Override
    public Object onEvent(String id, Map<?, ?> load) {
        if (!(load.get("tag") instanceof String tag) || tag.isBlank() || tag.length() > 255) {
            return false;
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("data", load.get("data") instanceof Map<?, ?> m ? m : Map.of());
        jdbi.useTransaction(h -> events.append(h, tag, data));
        events.publishPending();
        return true;
    }
}

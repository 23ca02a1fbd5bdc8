package io.drover.server.jobs;

import com.fasterxml.jackson.core.JsonGenerator;
import io.drover.model.Json;
import io.drover.server.events.EventStore;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The event of a stored return ({@code salt/job/<jid>/ret/<id>}), as Salt's master fires it: its JSON is written
 * around the return's stored JSON, which is the return as the agent sent it (nulls kept), not encoded a second time.
 */
final class ReturnEvent {
    private ReturnEvent() {
    }

    /** {@code fun} null: the job is not known here (left out, as an absent field). */
    static EventStore.Encoded of(String jid, String agentId, String fun, Object ret, String retJson, int retcode,
                                 boolean success) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("jid", jid);
        data.put("id", agentId);
        data.put("fun", fun);
        data.put("return", ret);
        data.put("retcode", retcode);
        data.put("success", success);
        StringWriter out = new StringWriter(retJson.length() + 128);
        try (JsonGenerator g = Json.json().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("jid", jid);
            g.writeStringField("id", agentId);
            if (fun != null) {
                g.writeStringField("fun", fun);
            }
            g.writeFieldName("return");
            g.writeRawValue(retJson);
            g.writeNumberField("retcode", retcode);
            g.writeBooleanField("success", success);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new EventStore.Encoded("salt/job/" + jid + "/ret/" + agentId, data, out.toString());
    }
}

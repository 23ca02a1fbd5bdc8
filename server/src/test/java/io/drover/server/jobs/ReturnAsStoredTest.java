package io.drover.server.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.drover.model.Json;
import io.drover.model.jobs.JobRequest;
import io.drover.server.auth.Principal;
import io.drover.server.testing.OnBothDatabases;
import io.drover.server.testing.JobServiceFixture;
import io.drover.server.testing.TestDatabases;
import io.drover.transport.envelope.JobReturn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API answers a job's returns from the JSON they are stored as, and the return's event is written around that
 * JSON: neither parses and encodes a return again. What an agent returned comes back as it was sent: nulls included
 * (in the event too, which encoding the return a second time with the API's mapper had dropped), odd text intact.
 */
class ReturnAsStoredTest {
    static Map<String, Object> awkwardReturn() {
        Map<String, Object> ret = new LinkedHashMap<>();
        ret.put("seen", null);
        ret.put("quotes", "\"a\" \\ 'b' </script>");
        ret.put("control", "nul\u0000 tab\t newline\n del\u007f");
        ret.put("unicode", "日本語 \uD83D\uDE80 \u2028\u2029 \uFEFF");
        ret.put("list", Arrays.asList(null, 1, -2.5, true, List.of(), Map.of()));
        Map<String, Object> deeper = new LinkedHashMap<>();
        deeper.put("x", 9_007_199_254_740_993L);
        deeper.put("gone", null);
        ret.put("nested", Map.of("deeper", deeper));
        return ret;
    }

    /** What the API's JSON mapper writes, read back. */
    static JsonNode asAnswered(Object answer) {
        return tree(json(answer));
    }

    /** What the API's JSON mapper writes. */
    static String json(Object answer) {
        try {
            return Json.json().writeValueAsString(answer);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static JsonNode tree(String json) {
        try {
            return Json.json().readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @OnBothDatabases
    void aReturnIsAnsweredAndFiredAsItWasSent(String kind) {
        TestDatabases.on(kind, db -> {
            JobService jobs = JobServiceFixture.start(db, "auto-1", "auto-2");
            try {
                Principal admin = Principal.system("test");
                String jid = jobs.start(admin, new JobRequest("auto-1,auto-2", "list", "test.echo", List.of(), Map.of(), 30)).jid();
                Map<String, Object> wire = new LinkedHashMap<>();
                wire.put("jid", jid);
                wire.put("fun", "test.echo");
                wire.put("return", awkwardReturn());
                jobs.onReturn("auto-1", JobReturn.fromWire(wire));
                JsonNode sent = tree(io.drover.server.store.Sql.documentToJson(awkwardReturn()));
                assertThat(sent.path("seen").isNull()).as("the tree keeps the null entry").isTrue();

                JsonNode answer = asAnswered(jobs.await(admin, jid, Duration.ZERO, JobStore.ReturnForm.STORED_JSON));
                assertThat(answer.path("returns").path("auto-1").path("ret")).isEqualTo(sent);
                assertThat(answer.path("missing")).extracting(JsonNode::asText).containsExactly("auto-2");
                JsonNode page = asAnswered(jobs.agents(admin, jid, null, 10));
                assertThat(page.path("agents").get(0).path("ret").path("ret")).isEqualTo(sent);

                // written out as stored, not parsed and encoded again: text Jackson would not write comes back verbatim
                String verbatim = "{\"b\": 1,  \"a\": [2.50, \"\\u00e9\"]}";
                db.jdbi().useHandle(h -> h.createUpdate("UPDATE job_agent SET ret = :ret WHERE jid = :jid AND minion_id = 'auto-1'")
                        .bind("ret", verbatim).bind("jid", jid).execute());
                assertThat(json(jobs.await(admin, jid, Duration.ZERO, JobStore.ReturnForm.STORED_JSON))).contains("\"ret\":" + verbatim);
                assertThat(json(jobs.agents(admin, jid, null, 10))).contains("\"ret\":" + verbatim);
                assertThat(json(jobs.await(admin, jid, Duration.ZERO))).as("values, encoded again").contains("\"ret\":{\"b\":1,\"a\":[2.5,\"é\"]}");
                db.jdbi().useHandle(h -> h.createUpdate("UPDATE job_agent SET ret = :ret WHERE jid = :jid AND minion_id = 'auto-1'")
                        .bind("ret", io.drover.server.store.Sql.documentToJson(awkwardReturn())).bind("jid", jid).execute());

                Object value = jobs.await(admin, jid, Duration.ZERO).returns().get("auto-1").ret();
                assertThat(tree(io.drover.server.store.Sql.documentToJson(value))).as("the server's own reading").isEqualTo(sent);

                List<String> stored = db.jdbi().withHandle(h -> h.createQuery(
                        "SELECT CAST(data AS VARCHAR) FROM event_outbox WHERE tag = :tag").bind("tag", "salt/job/" + jid + "/ret/auto-1")
                        .mapTo(String.class).list());
                assertThat(stored).hasSize(1);
                JsonNode event = tree(stored.getFirst());
                assertThat(new ArrayList<String>() {{ event.fieldNames().forEachRemaining(this::add); }})
                        .containsExactly("jid", "id", "fun", "return", "retcode", "success");
                assertThat(event.path("jid").asText()).isEqualTo(jid);
                assertThat(event.path("id").asText()).isEqualTo("auto-1");
                assertThat(event.path("fun").asText()).isEqualTo("test.echo");
                assertThat(event.path("return")).isEqualTo(sent);
                assertThat(event.path("retcode").asInt()).isZero();
                assertThat(event.path("success").asBoolean()).isTrue();
            } finally {
                jobs.close();
            }
        });
    }
}

package io.drover.transport.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.transport.crypto.Crypticle;
import io.drover.transport.wire.SaltPack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The publish load and the job return read what Salt writes, write Salt's keys, and refuse what is not one. */
class EnvelopeCodecTest {
    static JsonNode golden;

    @BeforeAll
    static void load() throws IOException {
        try (InputStream in = EnvelopeCodecTest.class.getResourceAsStream("/golden/vectors.json")) {
            golden = new ObjectMapper().readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Decoded from msgpack, as the transport hands it on. */
    static Map<?, ?> fromMsgpack(Map<String, Object> map) {
        return (Map<?, ?>) SaltPack.unpack(SaltPack.pack(map));
    }

    static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        out.put(key, value);
        return out;
    }

    static Map<String, Object> without(Map<String, Object> base, String key) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        out.remove(key);
        return out;
    }

    @Test
    void saltsOwnPublishLoadIsReadWithEveryField() {
        @SuppressWarnings("unchecked")
        Map<String, Object> salts = new ObjectMapper().convertValue(golden.get("publish_load"), LinkedHashMap.class);
        PublishLoad load = PublishLoad.fromWire(fromMsgpack(salts));
        assertThat(load).isEqualTo(new PublishLoad("test.echo", List.of("héllo-ünicode"), List.of("web-1", "web-2"), "list",
                "20261122062340135492", "", "root"));
    }

    @Test
    void aPublishLoadIsWrittenWithSaltsKeysAndReadBackEqual() {
        PublishLoad load = new PublishLoad("cmd.run", List.of("uptime", Map.of("__kwarg__", true, "timeout", 5L)), "web-*",
                "glob", "20261127120000123456", "", "admin");
        Map<String, Object> wire = load.toWire();
        assertThat(wire.keySet()).containsExactly("fun", "arg", "tgt", "tgt_type", "jid", "ret", "user");
        assertThat(PublishLoad.fromWire(fromMsgpack(wire))).isEqualTo(load);
        Map<String, Object> withSerial = with(wire, "serial", 42L);
        assertThat(PublishLoad.fromWire(fromMsgpack(with(withSerial, "kwargs", Map.of("delimiter", ":"))))).isEqualTo(load);
    }

    @Test
    void aPublishLoadMissingAFieldOrOfAnotherTypeIsRefused() {
        Map<String, Object> good = PublishLoad.forList("test.ping", List.of(), List.of("web-1"), "20261127120000123456", "a").toWire();
        List<Map<String, Object>> bad = List.of(without(good, "fun"), without(good, "jid"), without(good, "tgt"),
                with(good, "fun", 7L), with(good, "fun", ""), with(good, "jid", List.of("x")), with(good, "arg", "uptime"),
                with(good, "tgt", Map.of("a", 1L)), with(good, "tgt", Arrays.asList("web-1", 7L)),
                with(good, "tgt_type", true), with(good, "user", 1L), with(good, "ret", "r".repeat(257)),
                with(good, "jid", "1".repeat(257)), with(good, "tgt", "*".repeat(64 * 1024 + 1)),
                with(good, "arg", new ArrayList<>(java.util.Collections.nCopies(1_000_001, 1L))));
        for (Map<String, Object> wire : bad) {
            assertThatThrownBy(() -> PublishLoad.fromWire(wire)).as(wire.keySet().toString())
                    .isInstanceOf(MalformedEnvelopeException.class).hasMessageStartingWith("a publish load");
        }
        assertThatThrownBy(() -> PublishLoad.fromWire(null)).isInstanceOf(MalformedEnvelopeException.class);
    }

    @Test
    void saltMinionsReturnIsReadAndTheRestOfItsLoadLeftOut() {
        Crypticle crypticle = new Crypticle(golden.get("session_key").asText());
        Map<?, ?> wire = (Map<?, ?>) crypticle.loads(HexFormat.of().parseHex(golden.get("return_ciphertext_hex").asText()),
                golden.get("nonce").asText());
        assertThat(JobReturn.fromWire(wire)).isEqualTo(new JobReturn("20261122062340135492", "test.ping", List.of(), true, 0,
                true, false));
    }

    @Test
    void aReturnIsWrittenWithSaltsKeysAndKilledOnlyWhenItWas() {
        JobReturn ret = JobReturn.of("20261127120000123456", "cmd.run", Arrays.asList("false", null), "boom", 1);
        assertThat(ret.success()).isFalse();
        assertThat(ret.toWire().keySet()).containsExactly("jid", "fun", "fun_args", "return", "retcode", "success");
        assertThat(JobReturn.fromWire(fromMsgpack(ret.toWire()))).isEqualTo(ret);
        JobReturn killed = ret.asKilled();
        assertThat(killed.toWire()).containsEntry("killed", true);
        assertThat(JobReturn.fromWire(fromMsgpack(killed.toWire()))).isEqualTo(killed);
    }

    @Test
    void aReturnWithoutTheOptionalFieldsTakesSaltsDefaults() {
        Map<String, Object> wire = new HashMap<>();
        wire.put("jid", "20261127120000123456");
        wire.put("fun", "test.ping");
        wire.put("return", null);
        assertThat(JobReturn.fromWire(wire)).isEqualTo(new JobReturn("20261127120000123456", "test.ping", List.of(), null, 0,
                true, false));
    }

    @Test
    void aReturnMissingAFieldOrOfAnotherTypeIsRefused() {
        Map<String, Object> good = JobReturn.of("20261127120000123456", "test.ping", List.of(), true, 0).toWire();
        List<Map<String, Object>> bad = List.of(without(good, "jid"), without(good, "fun"), with(good, "jid", 2026L),
                with(good, "fun", List.of("a.b", "c.d")), with(good, "fun_args", "x"), with(good, "retcode", 1.5),
                with(good, "retcode", "0"), with(good, "retcode", 1L << 40), with(good, "success", "yes"),
                with(good, "killed", 1L), with(good, "jid", ""), with(good, "fun", "f".repeat(257)),
                with(good, "fun_args", new ArrayList<>(java.util.Collections.nCopies(1_000_001, "a"))));
        for (Map<String, Object> wire : bad) {
            assertThatThrownBy(() -> JobReturn.fromWire(wire)).as(wire.toString().substring(0, Math.min(200, wire.toString().length())))
                    .isInstanceOf(MalformedEnvelopeException.class).hasMessageStartingWith("a job return");
        }
        assertThatThrownBy(() -> JobReturn.fromWire(null)).isInstanceOf(MalformedEnvelopeException.class);
    }
}

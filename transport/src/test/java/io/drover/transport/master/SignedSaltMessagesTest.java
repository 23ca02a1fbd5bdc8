package io.drover.transport.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.SaltPack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Salt's {@code minion_sign_messages} and {@code require_minion_sign_messages} with a salt-minion's messages made by
 * Python (golden/make_signed_messages.py: python3-msgpack and pycryptodome, as Salt 3006 signs them): a signed return
 * and event are accepted and the minion shows as {@code salt-signed}; a changed one is refused; an unsigned one is
 * refused when signatures are required. Each refusal is counted.
 */
class SignedSaltMessagesTest {
    final MasterMinionTest.Keys keys = new MasterMinionTest.Keys();
    SaltMaster master;
    Crypticle shared;
    Map<String, String> vectors;

    @BeforeEach
    @SuppressWarnings("unchecked")
    void start() throws IOException {
        vectors = new ObjectMapper().readValue(resource("signed_messages.json"), Map.class);
        master = new SaltMaster(MasterMinionTest.MASTER_KEY, keys, "127.0.0.1", 0, 0, SaltMaster.PublishMode.FILTERED);
        RSAPrivateCrtKey minionKey = RsaKeys.parsePrivate(resource("minion.pem"));
        String id = vectors.get("id");
        keys.decisions.put(id, KeyDecision.ACCEPTED);
        Map<String, Object> auth = new LinkedHashMap<>(Map.of("cmd", "_auth", "id", id, "nonce", "n",
                "pub", RsaKeys.publicPem(RsaKeys.publicOf(minionKey))));
        Map<?, ?> reply = (Map<?, ?>) SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("clear", auth))));
        Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(SaltPack.bytes(reply.get("load")));
        shared = new Crypticle(new String(Rsa.decryptOaep(minionKey, SaltPack.bytes(inner.get("aes"))), StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        master.close();
    }

    static String resource(String name) throws IOException {
        try (InputStream in = SignedSaltMessagesTest.class.getResourceAsStream("/golden/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Sends a load exactly as packed on the wire (Python's bytes), under the shared key; the master's answer. */
    Object send(byte[] wireLoad) {
        byte[] prefix = Crypticle.PREFIX.getBytes(StandardCharsets.US_ASCII);
        byte[] plain = new byte[prefix.length + wireLoad.length];
        System.arraycopy(prefix, 0, plain, 0, prefix.length);
        System.arraycopy(wireLoad, 0, plain, prefix.length, wireLoad.length);
        return SaltPack.unpack(master.handle(SaltPack.pack(Messages.envelope("aes", shared.encrypt(plain)))));
    }

    byte[] vector(String name) {
        return HexFormat.of().parseHex(vectors.get(name));
    }

    /** The vector decoded, changed by {@code change}, packed again. */
    byte[] changed(String name, java.util.function.Consumer<Map<Object, Object>> change) {
        Map<Object, Object> load = new LinkedHashMap<>((Map<?, ?>) SaltPack.unpack(vector(name)));
        change.accept(load);
        return SaltPack.pack(load);
    }

    @Test
    void aSignedReturnAndEventAreAcceptedAndTheMinionShowsAsSigned() {
        assertThat(send(vector("return"))).isNotEqualTo("bad load");
        assertThat(send(vector("event"))).isNotEqualTo("bad load");
        assertThat(keys.returns).singleElement().satisfies(r -> assertThat(r.get("jid")).isEqualTo("20261127120000123456"));
        assertThat(keys.events).singleElement().satisfies(e -> assertThat(e.get("tag")).isEqualTo("salt/minion/salt-minion-1/start"));
        assertThat(keys.modes).containsEntry("salt-minion-1", AgentMode.SALT_SIGNED);
    }

    @Test
    void aChangedSignedMessageIsRefusedAndCounted() {
        Object answer = send(changed("return", load -> load.put("retcode", 1L)));
        Object event = send(changed("event", load -> load.put("tag", "salt/minion/salt-minion-1/stop")));
        assertThat(answer).isEqualTo("bad load");
        assertThat(event).isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
        assertThat(keys.events).isEmpty();
        assertThat(master.refusedRequests(RequestRefusal.BAD_SIGNATURE)).isEqualTo(2);
    }

    @Test
    void unsignedMessagesAreRefusedWhenSignaturesAreRequired() {
        byte[] unsigned = changed("return", load -> load.remove("sig"));
        assertThat(send(unsigned)).isNotEqualTo("bad load");
        assertThat(keys.modes).containsEntry("salt-minion-1", AgentMode.SALT);
        keys.returns.clear();

        keys.requireSigned = true;
        assertThat(send(unsigned)).isEqualTo("bad load");
        assertThat(send(changed("event", load -> load.remove("sig")))).isEqualTo("bad load");
        assertThat(keys.returns).isEmpty();
        assertThat(keys.events).isEmpty();
        assertThat(master.refusedRequests(RequestRefusal.UNSIGNED)).isEqualTo(2);
        assertThat(send(vector("return"))).isNotEqualTo("bad load");
        assertThat(keys.modes).containsEntry("salt-minion-1", AgentMode.SALT_SIGNED);
    }
}

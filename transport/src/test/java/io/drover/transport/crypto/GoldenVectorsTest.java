package io.drover.transport.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.drover.transport.wire.SaltPack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Wire compatibility with vectors made by independent implementations (python3-msgpack, pycryptodome and
 * OpenSSL's X9.31; see golden/make_golden.py): the Java code reproduces them byte for byte and parses them.
 * The keys in golden/ are test-only keys made by that script.
 */
class GoldenVectorsTest {
    static JsonNode v;
    static RSAPrivateCrtKey masterKey;
    static RSAPublicKey masterPub;
    static RSAPrivateCrtKey minionKey;
    static RSAPublicKey minionPub;
    static final HexFormat HEX = HexFormat.of();

    static String resource(String name) throws IOException {
        try (InputStream in = GoldenVectorsTest.class.getResourceAsStream("/golden/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @BeforeAll
    static void load() throws IOException {
        v = new ObjectMapper().readTree(resource("vectors.json"));
        masterKey = RsaKeys.parsePrivate(resource("master.pem"));
        masterPub = RsaKeys.parsePublic(resource("master.pub"));
        minionKey = RsaKeys.parsePrivate(resource("minion.pem"));
        minionPub = RsaKeys.parsePublic(resource("minion.pub"));
    }

    static Object plain(JsonNode node) {
        return new ObjectMapper().convertValue(node, Object.class);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> publishLoad() {
        return new ObjectMapper().convertValue(v.get("publish_load"), LinkedHashMap.class);
    }

    @Test
    void msgpackIsTheOldSpecByteForByte() {
        for (JsonNode sample : v.get("msgpack_samples")) {
            Object value = plain(sample.get("value"));
            assertThat(HEX.formatHex(SaltPack.pack(value))).as(sample.get("value").toString())
                    .isEqualTo(sample.get("hex").asText());
            Object back = SaltPack.unpack(HEX.parseHex(sample.get("hex").asText()));
            assertThat(SaltPack.pack(back)).isEqualTo(HEX.parseHex(sample.get("hex").asText()));
        }
        assertThat(HEX.formatHex(SaltPack.pack(publishLoad()))).isEqualTo(v.get("publish_load_hex").asText());
        assertThat(v.get("msgpack_samples").get(1).get("hex").asText()).startsWith("da0028");
    }

    @Test
    void rsaKeysRoundTripThroughSaltsPemForms() throws IOException {
        assertThat(RsaKeys.privatePem(masterKey).strip()).isEqualTo(resource("master.pem").strip());
        assertThat(RsaKeys.publicPem(masterPub).strip()).isEqualTo(resource("master.pub").strip());
        assertThat(RsaKeys.publicOf(minionKey)).isEqualTo(minionPub);
    }

    @Test
    void aPublishFrameIsReproducedAndParsed() {
        Crypticle crypticle = new Crypticle(v.get("session_key").asText());
        byte[] iv = HEX.parseHex(v.get("iv_hex").asText());
        byte[] ct = crypticle.encrypt(Crypticle.frame(publishLoad(), null), iv);
        Map<String, Object> frame = new LinkedHashMap<>();
        frame.put("enc", "aes");
        frame.put("load", ct);
        frame.put("sig", Rsa.signSha1(masterKey, ct));
        assertThat(HEX.formatHex(SaltPack.pack(frame))).isEqualTo(v.get("publish_frame_hex").asText());

        Map<?, ?> parsed = (Map<?, ?>) SaltPack.unpack(HEX.parseHex(v.get("publish_frame_hex").asText()));
        byte[] load = SaltPack.bytes(parsed.get("load"));
        assertThat(Rsa.verifySha1(masterPub, load, SaltPack.bytes(parsed.get("sig")))).isTrue();
        Map<?, ?> decoded = (Map<?, ?>) crypticle.loads(load, null);
        assertThat(decoded.get("fun")).isEqualTo("test.echo");
        assertThat(decoded.get("arg")).isEqualTo(java.util.List.of("héllo-ünicode"));
        assertThat(decoded.get("serial")).isEqualTo(24L);
    }

    @Test
    void aReturnWithANonceDecryptsOnlyWithThatNonce() {
        Crypticle crypticle = new Crypticle(v.get("session_key").asText());
        byte[] ct = HEX.parseHex(v.get("return_ciphertext_hex").asText());
        Map<?, ?> ret = (Map<?, ?>) crypticle.loads(ct, v.get("nonce").asText());
        assertThat(ret.get("cmd")).isEqualTo("_return");
        assertThat(ret.get("return")).isEqualTo(true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> crypticle.loads(ct, "ffffffffffffffffffffffffffffffff"))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("nonce");
        byte[] tampered = ct.clone();
        tampered[20] ^= 1;
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> crypticle.loads(tampered, v.get("nonce").asText()))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("HMAC");
    }

    @Test
    void anAcceptedAuthReplyVerifiesAndYieldsTheSessionKeyAndToken() throws Exception {
        Map<?, ?> outer = (Map<?, ?>) SaltPack.unpack(HEX.parseHex(v.get("auth_reply_hex").asText()));
        byte[] innerBytes = SaltPack.bytes(outer.get("load"));
        assertThat(Rsa.verifySha1(masterPub, innerBytes, SaltPack.bytes(outer.get("sig")))).isTrue();
        Map<?, ?> inner = (Map<?, ?>) SaltPack.unpack(innerBytes);
        assertThat(inner.get("publish_port")).isEqualTo(4505L);
        assertThat(RsaKeys.parsePublic((String) inner.get("pub_key"))).isEqualTo(masterPub);
        String session = new String(Rsa.decryptOaep(minionKey, SaltPack.bytes(inner.get("aes"))), StandardCharsets.UTF_8);
        assertThat(session).isEqualTo(v.get("session_key").asText());
        byte[] digest = HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(session.getBytes(StandardCharsets.UTF_8)))
                .getBytes(StandardCharsets.US_ASCII);
        assertThat(Rsa.recoverX931(masterPub, SaltPack.bytes(inner.get("sig")))).isEqualTo(digest);
        assertThat(new String(Rsa.decryptOaep(minionKey, SaltPack.bytes(inner.get("token"))), StandardCharsets.UTF_8))
                .isEqualTo(v.get("token").asText());
    }

    @Test
    void x931SignaturesMatchOpenSsl() throws Exception {
        byte[] digest = HEX.formatHex(MessageDigest.getInstance("SHA-256")
                .digest(v.get("session_key").asText().getBytes(StandardCharsets.UTF_8))).getBytes(StandardCharsets.US_ASCII);
        assertThat(HEX.formatHex(Rsa.signX931(masterKey, digest))).isEqualTo(v.get("x931_master_sig_hex").asText());
        assertThat(HEX.formatHex(Rsa.signX931(minionKey, "salt".getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo(v.get("minion_tok_hex").asText());
        assertThat(Rsa.recoverX931(minionPub, HEX.parseHex(v.get("minion_tok_hex").asText())))
                .isEqualTo("salt".getBytes(StandardCharsets.US_ASCII));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Rsa.recoverX931(masterPub,
                HEX.parseHex(v.get("minion_tok_hex").asText()))).isInstanceOf(InvalidMessageException.class);
    }

    /**
     * salt-minion-3006.pub is the key a real salt-minion 3006.0 generated on this machine; its fingerprint is what
     * Salt's own {@code salt.utils.crypt.pem_finger} printed for that file (the value salt-key and key.finger show).
     */
    @Test
    void keyFingerprintsAreTheOnesSaltShows() throws IOException {
        String pem = resource("salt-minion-3006.pub");
        String salt = "11:c1:0b:c3:4a:07:ea:97:81:bc:c1:66:b3:09:d6:a9:5f:f2:47:05:a2:6c:71:88:20:08:ea:dd:82:59:a9:6b";
        assertThat(RsaKeys.fingerprint(pem)).isEqualTo(salt);
        assertThat(RsaKeys.fingerprint(pem.replace("\n", "\r\n"))).as("line endings do not matter").isEqualTo(salt);
        assertThat(RsaKeys.fingerprint(RsaKeys.publicPem(minionPub))).isNotEqualTo(salt);
    }
}

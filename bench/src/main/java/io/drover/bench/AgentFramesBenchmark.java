package io.drover.bench;

import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.envelope.PublishLoad;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.SaltPack;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What the master's publisher thread spends making a {@code test.ping} for 8,000 Drover agents, each in a frame of its
 * own under its own key (frame once, then per agent: topic, AES-CBC + HMAC-SHA256, envelope), against the one signed
 * broadcast frame a job for every minion was before. Sockets are not included (the same sends happen either way, one
 * buffer shared or one per agent).
 *
 * <p>Usage: {@code bench/run AgentFramesBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
public class AgentFramesBenchmark {
    static final int AGENTS = 8_000;
    List<String> ids;
    Map<String, Crypticle> keys;
    Crypticle shared;
    RSAPrivateCrtKey masterKey;
    Map<String, Object> load;

    @Setup
    public void setUp() {
        ids = java.util.stream.IntStream.range(0, AGENTS).mapToObj(i -> "host-" + i + ".example.com").toList();
        keys = new java.util.HashMap<>();
        ids.forEach(id -> keys.put(id, new Crypticle(Crypticle.generateKeyString())));
        shared = new Crypticle(Crypticle.generateKeyString());
        masterKey = (RSAPrivateCrtKey) RsaKeys.generate().getPrivate();
        load = new PublishLoad("test.ping", List.of(), "host-*", "glob", "20261127120000123456", "", "admin").toWire();
        load.put("serial", 42L); // as the master's publisher thread adds it
    }

    @Benchmark
    public int perAgentFrames() {
        byte[] plain = Crypticle.frame(load, null);
        int bytes = 0;
        for (String id : ids) {
            byte[] topic = Messages.topic(id).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Map<String, Object> envelope = new LinkedHashMap<>();
            envelope.put("enc", Messages.AGENT_ENC);
            envelope.put("load", keys.get(id).encrypt(plain));
            bytes += SaltPack.pack(envelope).length + topic.length;
        }
        return bytes;
    }

    @Benchmark
    public int oneSignedBroadcast() {
        byte[] ct = shared.encrypt(Crypticle.frame(load, null));
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("enc", "aes");
        envelope.put("load", ct);
        envelope.put("sig", Rsa.signSha1(masterKey, ct));
        return SaltPack.pack(envelope).length;
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().include(AgentFramesBenchmark.class.getSimpleName()).build()).run();
    }
}

package io.drover.transport.master;

import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.InvalidMessageException;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The master side of Salt's ZeroMQ transport: a ROUTER on the request port whose requests are handled by a
 * pool of virtual-thread workers, and a PUB on the publish port. Each socket has one owner thread; workers hand
 * replies back through a queue and wake the router thread through a pipe.
 */
public final class SaltMaster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SaltMaster.class);
    private static final byte[] BROADCAST = "broadcast".getBytes(StandardCharsets.UTF_8);
    /** What a salt-minion's file client asks without naming itself; Drover serves the first three, the rest get None. */
    private static final java.util.Set<String> FILESERVER_COMMANDS = java.util.Set.of("_file_list", "_file_hash", "_serve_file",
            "_file_find", "_file_list_emptydirs", "_dir_list", "_symlink_list", "_file_envs", "_master_opts");
    private static final int MAX_WORKERS = 10_000;
    /** Connections that have not finished the ZMTP handshake by then are dropped (see JeroMqTransport.HANDSHAKE_MS). */
    private static final int HANDSHAKE_MS = 2000;

    /** How publishes are framed: per-target topics (Salt's zmq_filtering), or one broadcast frame for every SUB. */
    public enum PublishMode { FILTERED, BROADCAST }

    private final RSAPrivateCrtKey masterKey;
    private final String masterPubPem;
    private final MasterHandler handler;
    private final ZContext context = new ZContext(1);
    private final ZMQ.Socket router;
    private final ZMQ.Socket pub;
    private final int requestPort;
    private final int publishPort;
    private final PublishMode publishMode;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore workerSlots = new Semaphore(MAX_WORKERS);
    private final ConcurrentLinkedQueue<byte[][]> replies = new ConcurrentLinkedQueue<>();
    private final BlockingQueue<byte[][]> publishes = new LinkedBlockingQueue<>(100_000);
    private final Pipe wakeup;
    private final AtomicLong serial = new AtomicLong();
    private final AtomicLong broadcastFrames = new AtomicLong();
    private final AtomicLong targetedFrames = new AtomicLong();
    private volatile Crypticle session = new Crypticle(Crypticle.generateKeyString());
    private volatile boolean running = true;
    private final Thread routerThread;
    private final Thread publisherThread;

    /**
     * Binds {@code tcp://host:publishPort} and {@code tcp://host:requestPort} (0 = any free port).
     */
    public SaltMaster(RSAPrivateCrtKey masterKey, MasterHandler handler, String host, int publishPort, int requestPort,
                      PublishMode publishMode) {
        this.masterKey = masterKey;
        this.masterPubPem = RsaKeys.publicPem(RsaKeys.publicOf(masterKey));
        this.handler = handler;
        this.publishMode = publishMode;
        try {
            this.wakeup = Pipe.open();
            wakeup.source().configureBlocking(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.pub = context.createSocket(SocketType.PUB);
        pub.setSndHWM(100_000);
        pub.setHandshakeIvl(HANDSHAKE_MS);
        pub.setLinger(0);
        this.publishPort = bind(pub, host, publishPort);
        this.router = context.createSocket(SocketType.ROUTER);
        router.setRcvHWM(100_000);
        router.setSndHWM(100_000);
        router.setLinger(0);
        router.setBacklog(10_000);
        router.setHandshakeIvl(HANDSHAKE_MS);
        this.requestPort = bind(router, host, requestPort);
        log.info("salt master: publish port {}, request port {}", this.publishPort, this.requestPort);
        this.routerThread = Thread.ofPlatform().name("salt-master-router").daemon().start(this::routeRequests);
        this.publisherThread = Thread.ofPlatform().name("salt-master-publisher").daemon().start(this::publishLoop);
    }

    /**
     * Binds; port 0 lets the operating system choose. (JeroMQ's bindToRandomPort guesses ports itself and can take
     * one that is in use as the source port of a loopback connection: peers then never reach it.)
     */
    private static int bind(ZMQ.Socket socket, String host, int port) {
        socket.bind("tcp://" + host + ":" + (port == 0 ? "*" : Integer.toString(port)));
        String endpoint = socket.getLastEndpoint();
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    public int requestPort() {
        return requestPort;
    }

    public int publishPort() {
        return publishPort;
    }

    public String publicKeyPem() {
        return masterPubPem;
    }

    /** A new session key: every minion re-authenticates on its next message (after a key is rejected or deleted). */
    public void rotateSessionKey() {
        session = new Crypticle(Crypticle.generateKeyString());
        log.info("rotated the session key");
    }

    /**
     * Publishes a job load ({@code fun, arg, tgt, tgt_type, jid, ret, user}) to the given minions (their topics),
     * or to every subscriber when {@code minions} is null. Adds the increasing {@code serial}.
     */
    public void publish(Map<String, Object> load, Collection<String> minions) {
        Map<String, Object> withSerial = new LinkedHashMap<>(load);
        withSerial.put("serial", serial.incrementAndGet());
        byte[] ct = session.dumps(withSerial, null);
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("enc", "aes");
        envelope.put("load", ct);
        envelope.put("sig", Rsa.signSha1(masterKey, ct));
        byte[] frame = SaltPack.pack(envelope);
        if (publishMode == PublishMode.BROADCAST || minions == null) {
            enqueue(new byte[][] {BROADCAST, frame});
            broadcastFrames.incrementAndGet();
        } else {
            for (String id : minions) {
                enqueue(new byte[][] {Messages.topic(id).getBytes(StandardCharsets.US_ASCII), frame});
            }
            targetedFrames.addAndGet(minions.size());
        }
    }

    /** Publishes sent with the topic "broadcast" since start. */
    public long broadcastFrames() {
        return broadcastFrames.get();
    }

    /** Publishes sent with one minion's topic since start. */
    public long targetedFrames() {
        return targetedFrames.get();
    }

    private void enqueue(byte[][] frames) {
        if (!publishes.offer(frames)) {
            log.warn("publish queue full; a publish was dropped");
        }
    }

    private void publishLoop() {
        while (running) {
            try {
                byte[][] frames = publishes.poll(200, TimeUnit.MILLISECONDS);
                if (frames == null) {
                    continue;
                }
                for (int i = 0; i < frames.length; i++) {
                    pub.send(frames[i], i < frames.length - 1 ? ZMQ.SNDMORE : 0);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (running) {
                    log.warn("publish failed", e);
                }
            }
        }
    }

    private void routeRequests() {
        ZMQ.Poller poller = context.createPoller(2);
        poller.register(router, ZMQ.Poller.POLLIN);
        poller.register(wakeup.source(), ZMQ.Poller.POLLIN);
        ByteBuffer drain = ByteBuffer.allocate(4096);
        while (running) {
            try {
                poller.poll(500);
                if (poller.pollin(1)) {
                    drain.clear();
                    while (wakeup.source().read(drain) > 0) {
                        drain.clear();
                    }
                }
                byte[][] reply;
                while ((reply = replies.poll()) != null) {
                    router.send(reply[0], ZMQ.SNDMORE);
                    router.send(reply[1], ZMQ.SNDMORE);
                    router.send(reply[2], 0);
                }
                if (poller.pollin(0)) {
                    receiveRequests();
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    log.warn("request routing error", e);
                }
            }
        }
        poller.close();
    }

    private void receiveRequests() {
        while (true) {
            byte[] identity = router.recv(ZMQ.DONTWAIT);
            if (identity == null) {
                return;
            }
            List<byte[]> frames = new ArrayList<>(2);
            while (router.hasReceiveMore()) {
                frames.add(router.recv(0));
            }
            if (frames.size() != 2 || frames.get(0).length != 0) {
                log.debug("dropped a request with {} frames", frames.size());
                continue;
            }
            byte[] payload = frames.get(1);
            if (!workerSlots.tryAcquire()) {
                log.warn("all {} workers busy; a request was dropped (the minion retries)", MAX_WORKERS);
                continue;
            }
            workers.execute(() -> {
                try {
                    byte[] answer = handle(payload);
                    replies.add(new byte[][] {identity, new byte[0], answer});
                    wake();
                } finally {
                    workerSlots.release();
                }
            });
        }
    }

    private void wake() {
        synchronized (wakeup) {
            try {
                wakeup.sink().write(ByteBuffer.wrap(new byte[] {1}));
            } catch (IOException e) {
                log.warn("cannot wake the router thread", e);
            }
        }
    }

    /** One request in, one reply out. Never throws: anything malformed gets Salt's "bad load". */
    byte[] handle(byte[] payload) {
        try {
            Map<?, ?> envelope = Messages.map(SaltPack.unpack(payload), "request");
            Object enc = envelope.get("enc");
            if ("clear".equals(enc)) {
                Map<?, ?> load = Messages.map(envelope.get("load"), "load");
                if ("_auth".equals(load.get("cmd"))) {
                    return SaltPack.pack(auth(load));
                }
                log.warn("refused clear command {}: jobs are published only by the server", load.get("cmd"));
                return SaltPack.pack("clear commands are not accepted");
            }
            if ("aes".equals(enc)) {
                return aes(SaltPack.bytes(envelope.get("load")));
            }
            return SaltPack.pack("bad load");
        } catch (MalformedFrameException | InvalidMessageException e) {
            log.debug("bad request: {}", e.getMessage());
            return SaltPack.pack("bad load");
        } catch (RuntimeException e) {
            log.warn("request failed", e);
            return SaltPack.pack("bad load");
        }
    }

    private byte[] aes(byte[] ciphertext) {
        Crypticle current = session;
        Map<Object, Object> load = new LinkedHashMap<>(Messages.map(current.loads(ciphertext, null), "load"));
        String replyNonce = load.remove("nonce") instanceof String s ? s : null;
        String cmd = Messages.string(load, "cmd");
        if (load.get("id") == null && FILESERVER_COMMANDS.contains(cmd)) {
            // A salt-minion's file client sends no id (a salt-master asks for none): the current session key, which
            // only accepted minions get and which changes when a key is rejected or deleted, is the credential.
            return SaltPack.pack(current.dumps(handler.onCommand(null, cmd, load), replyNonce));
        }
        String id = Messages.string(load, "id");
        String pubPem = Messages.validId(id) ? handler.acceptedKey(id) : null;
        if (pubPem == null) {
            log.warn("AES request from {} which is not accepted", id);
            return SaltPack.pack("bad load");
        }
        if (cmd.equals("_pillar")) {
            return SaltPack.pack(privateReply(RsaKeys.parsePublic(pubPem), "pillar", handler.onPillar(id, load), replyNonce));
        }
        Object result = switch (cmd) {
            case "_return" -> handler.onReturn(id, load);
            case "_minion_event" -> {
                if (!tokenValid(pubPem, load.get("tok"))) {
                    log.warn("event from {} with a bad token", id);
                    yield false;
                }
                yield handler.onEvent(id, load);
            }
            default -> handler.onCommand(id, cmd, load);
        };
        return SaltPack.pack(current.dumps(result, replyNonce));
    }

    /**
     * Salt's {@code send_private} form: a fresh session key encrypted to the minion's key, and under that key the
     * value signed by the master together with the encrypted key and the request's nonce.
     */
    private Map<String, Object> privateReply(RSAPublicKey minionPub, String dictKey, Object value, String nonce) {
        Crypticle fresh = new Crypticle(Crypticle.generateKeyString());
        byte[] encryptedKey = Rsa.encryptOaep(minionPub, fresh.keyString().getBytes(StandardCharsets.UTF_8));
        Map<String, Object> toSign = new LinkedHashMap<>();
        toSign.put("key", encryptedKey);
        toSign.put(dictKey, value);
        toSign.put("nonce", nonce);
        byte[] data = SaltPack.pack(toSign);
        Map<String, Object> signed = new LinkedHashMap<>();
        signed.put("data", data);
        signed.put("sig", Rsa.signSha1(masterKey, data));
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("key", encryptedKey);
        reply.put(dictKey, fresh.dumps(signed, null));
        return reply;
    }

    private static boolean tokenValid(String pubPem, Object tok) {
        try {
            byte[] recovered = Rsa.recoverX931(RsaKeys.parsePublic(pubPem), SaltPack.bytes(tok));
            return new String(recovered, StandardCharsets.US_ASCII).equals("salt");
        } catch (RuntimeException e) {
            return false;
        }
    }

    private Map<String, Object> auth(Map<?, ?> load) {
        Object nonce = load.get("nonce");
        Object id = load.get("id");
        Map<String, Object> inner = new LinkedHashMap<>();
        RSAPublicKey minionPub;
        try {
            minionPub = RsaKeys.parsePublic(Messages.string(load, "pub"));
        } catch (RuntimeException e) {
            minionPub = null;
        }
        KeyDecision decision = !Messages.validId(id) || minionPub == null ? KeyDecision.REJECTED
                : handler.decideKey((String) id, (String) load.get("pub"), load);
        switch (decision) {
            case PENDING -> inner.put("ret", true);
            case REJECTED, DENIED -> inner.put("ret", false);
            case FULL -> inner.put("ret", "full");
            case ACCEPTED -> {
                String aes = session.keyString();
                inner.put("enc", "pub");
                inner.put("pub_key", masterPubPem);
                inner.put("publish_port", publishPort);
                // Tells a Drover minion that publishes carry topics (sha1(id) or "broadcast"); a salt-minion ignores it.
                inner.put(Messages.TOPICS_FLAG, true);
                inner.put("aes", Rsa.encryptOaep(minionPub, aes.getBytes(StandardCharsets.UTF_8)));
                inner.put("sig", Rsa.signX931(masterKey, Messages.sha256Hex(aes).getBytes(StandardCharsets.US_ASCII)));
                if (load.get("token") != null) {
                    byte[] token = Rsa.decryptOaep(masterKey, SaltPack.bytes(load.get("token")));
                    inner.put("token", Rsa.encryptOaep(minionPub, token));
                }
            }
        }
        inner.put("nonce", nonce);
        byte[] packed = SaltPack.pack(inner);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("enc", "clear");
        reply.put("load", packed);
        reply.put("sig", Rsa.signSha1(masterKey, packed));
        return reply;
    }

    @Override
    public void close() {
        running = false;
        workers.shutdownNow();
        try {
            routerThread.join(2000);
            publisherThread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        context.close();
        try {
            wakeup.sink().close();
            wakeup.source().close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

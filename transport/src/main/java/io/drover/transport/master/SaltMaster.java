package io.drover.transport.master;

import io.drover.transport.admission.AddressLimits;
import io.drover.transport.admission.ConnectionsPerAddress;
import io.drover.transport.admission.SignInsPerAddress;
import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.InvalidMessageException;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.logging.RateLimitedLog;
import io.drover.transport.protocol.EnrollmentSeal;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import io.drover.transport.zmtp.PortInUseException;
import io.drover.transport.zmtp.ReceiveBudget;
import io.drover.transport.zmtp.ZmtpLimits;
import io.drover.transport.zmtp.ZmtpLoop;
import io.drover.transport.zmtp.ZmtpPublisher;
import io.drover.transport.zmtp.ZmtpRouter;
import io.drover.transport.zmtp.ZmtpStats;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master side of Salt's ZeroMQ transport: a ROUTER on the request port whose requests are handled by a pool of
 * virtual-thread workers, and a PUB on the publish port, both Drover's own ZMTP endpoints with bounded input
 * ({@link Limits}), also per source address: connections on each port, and sign-ins a minute, which past the limit
 * are answered without RSA work ({@link AddressLimits}). One publisher thread owns the publish serial: it numbers, encrypts, signs and sends each publish
 * in the order they were queued, so an agent never sees serials out of order. A watchdog checks every second that
 * both socket loops and the publisher are alive; a dead one is rebuilt on the same port (agents reconnect by
 * themselves) and {@link MasterHandler#onTransportRestart} is told.
 */
public final class SaltMaster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SaltMaster.class);
    private final RateLimitedLog peerWarnings = new RateLimitedLog(log);
    private static final byte[] BROADCAST = "broadcast".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EMPTY = new byte[0];
    /** What a salt-minion's file client asks without naming itself; Drover serves the first three, the rest get None. */
    private static final java.util.Set<String> FILESERVER_COMMANDS = java.util.Set.of("_file_list", "_file_hash", "_serve_file",
            "_file_find", "_file_list_emptydirs", "_dir_list", "_symlink_list", "_file_envs", "_master_opts");
    private static final int MAX_WORKERS = 10_000;

    /** How publishes are framed: per-target topics (Salt's zmq_filtering), or one broadcast frame for every SUB. */
    public enum PublishMode { FILTERED, BROADCAST }

    /**
     * What a peer may cost. {@code maxRequestBytes}: the largest request (a job return is the largest a minion
     * sends); {@code maxConnections}: per port; {@code receiveBudgetBytes}: requests still arriving on all
     * connections together; {@code maxQueuedBytes}: bytes waiting to be written to one connection before further
     * messages to it are dropped; {@code perAddress}: connections on each port and sign-ins a minute from one source
     * address.
     */
    public record Limits(int maxRequestBytes, int maxConnections, long receiveBudgetBytes, int maxQueuedBytes,
                         AddressLimits perAddress) {
        /** Subscriptions a minion needs: its topic and "broadcast" (Drover), or "" (a salt-minion); room to spare. */
        static final int MAX_SUBSCRIPTIONS = 8;
        /** A topic is 40 hex digits or "broadcast". */
        static final int MAX_SUBSCRIPTION_BYTES = 64;

        public static Limits defaults() {
            return new Limits(16 << 20, 50_000, 512L << 20, 16 << 20, AddressLimits.defaults());
        }

        ZmtpLimits router() {
            return new ZmtpLimits(maxRequestBytes, 4, maxQueuedBytes, 0, 0);
        }

        ZmtpLimits publisher() {
            return new ZmtpLimits(ZmtpLimits.MAX_COMMAND_BYTES, 1, maxQueuedBytes, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTION_BYTES);
        }
    }

    private final RSAPrivateCrtKey masterKey;
    private final String masterPubPem;
    private final MasterHandler handler;
    private final String host;
    private final Limits limits;
    private final PublishMode publishMode;
    private final ZmtpStats requestStats = new ZmtpStats("salt request port");
    private final ZmtpStats publishStats = new ZmtpStats("salt publish port");
    private final ReceiveBudget requestBudget;
    private final ConnectionsPerAddress requestConnections;
    private final ConnectionsPerAddress publishConnections;
    private final SignInsPerAddress signIns;
    private final AtomicLong signInsRefused = new AtomicLong();
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore workerSlots = new Semaphore(MAX_WORKERS);
    /** RSA private operations of request workers at once: half the cores, at least one (first come, first served). */
    private final Semaphore signatures = new Semaphore(Math.max(1, Runtime.getRuntime().availableProcessors() / 2), true);
    private final PublishQueue publishes;
    private final AtomicLong broadcastFrames = new AtomicLong();
    private final AtomicLong targetedFrames = new AtomicLong();
    private final AtomicLong agentFrames = new AtomicLong();
    private final Map<RequestRefusal, AtomicLong> refusals = new java.util.EnumMap<>(RequestRefusal.class);
    /** Each accepted minion's mode as signed in or heard here (or as recorded by the handler); bounded. */
    private final java.util.concurrent.ConcurrentHashMap<String, AgentMode> modes = new java.util.concurrent.ConcurrentHashMap<>();
    /** The session key the modes in {@link #modes} were heard under. */
    private volatile Crypticle modesUnder;
    private static final int MAX_MODES = AgentKeys.MAX_CACHED;
    private final AgentKeys agentKeys;
    private final AtomicLong restarts = new AtomicLong();
    private final SessionKey session;
    private volatile boolean running = true;
    private final int requestPort;
    private final int publishPort;
    private volatile ZmtpLoop requestLoop;
    private volatile ZmtpRouter router;
    private volatile ZmtpLoop publishLoop;
    private volatile ZmtpPublisher pub;
    private volatile Thread publisherThread;
    private final Thread watchdog;
    /** The publish serial: read and written by the publisher thread only (a rebuilt publisher goes on from it). */
    private final AtomicLong serial = new AtomicLong();
    private final Clock clock = Clock.systemUTC();

    public SaltMaster(RSAPrivateCrtKey masterKey, MasterHandler handler, String host, int publishPort, int requestPort,
                      PublishMode publishMode) {
        this(masterKey, handler, host, publishPort, requestPort, publishMode, Limits.defaults());
    }

    /**
     * Binds {@code host:publishPort} and {@code host:requestPort} (0 = any free port).
     *
     * @throws PortInUseException when a port is taken
     */
    public SaltMaster(RSAPrivateCrtKey masterKey, MasterHandler handler, String host, int publishPort, int requestPort,
                      PublishMode publishMode, Limits limits) {
        this(masterKey, handler, host, publishPort, requestPort, publishMode, limits, new PublishQueue());
    }

    /** As above, sending what is queued on {@code publishes} (held by whoever starts jobs, from before the master). */
    public SaltMaster(RSAPrivateCrtKey masterKey, MasterHandler handler, String host, int publishPort, int requestPort,
                      PublishMode publishMode, Limits limits, PublishQueue publishes) {
        this(masterKey, handler, host, publishPort, requestPort, publishMode, limits, publishes, new SessionKey());
    }

    /** As above, encrypting under {@code session} (held by whoever revokes minion keys, from before the master). */
    public SaltMaster(RSAPrivateCrtKey masterKey, MasterHandler handler, String host, int publishPort, int requestPort,
                      PublishMode publishMode, Limits limits, PublishQueue publishes, SessionKey session) {
        this.publishes = publishes;
        this.session = session;
        this.agentKeys = new AgentKeys(masterKey, session);
        for (RequestRefusal r : RequestRefusal.values()) {
            refusals.put(r, new AtomicLong());
        }
        this.masterKey = masterKey;
        this.masterPubPem = RsaKeys.publicPem(RsaKeys.publicOf(masterKey));
        this.handler = handler;
        this.host = host;
        this.limits = limits;
        this.publishMode = publishMode;
        this.requestBudget = new ReceiveBudget(limits.receiveBudgetBytes());
        this.requestConnections = new ConnectionsPerAddress(limits.perAddress());
        this.publishConnections = new ConnectionsPerAddress(limits.perAddress());
        this.signIns = new SignInsPerAddress(limits.perAddress(), Clock.systemUTC());
        this.publishPort = startPublisher(publishPort);
        try {
            this.requestPort = startRouter(requestPort);
        } catch (RuntimeException e) {
            publishLoop.close();
            throw e;
        }
        this.publisherThread = startPublisherThread();
        this.watchdog = Thread.ofPlatform().name("salt-master-watchdog").daemon().start(this::watch);
        log.info("salt master: publish port {}, request port {}", this.publishPort, this.requestPort);
    }

    private int startPublisher(int port) {
        ZmtpLoop loop = new ZmtpLoop("salt-publish-io");
        try {
            pub = new ZmtpPublisher(loop, host, port, limits.publisher(), limits.maxConnections(), publishConnections,
                    publishStats);
        } catch (RuntimeException e) {
            loop.close();
            throw e;
        }
        publishLoop = loop;
        return pub.port();
    }

    private int startRouter(int port) {
        ZmtpLoop loop = new ZmtpLoop("salt-request-io");
        try {
            router = new ZmtpRouter(loop, host, port, limits.router(), limits.maxConnections(), requestConnections,
                    requestBudget, requestStats, this::onRequest);
        } catch (RuntimeException e) {
            loop.close();
            throw e;
        }
        requestLoop = loop;
        return router.port();
    }

    private Thread startPublisherThread() {
        return Thread.ofPlatform().name("salt-master-publisher").daemon().start(this::publishLoop);
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

    /** Whether both ports are served and the publisher runs (what {@code /readyz} reports). */
    public boolean ready() {
        return running && requestLoop.alive() && publishLoop.alive() && publisherThread.isAlive();
    }

    /** Endpoints rebuilt by the watchdog since start. */
    public long restarts() {
        return restarts.get();
    }

    public ZmtpStats requestStats() {
        return requestStats;
    }

    public ZmtpStats publishStats() {
        return publishStats;
    }

    /** Publishes dropped because the queue was full. */
    public long droppedPublishes() {
        return publishes.dropped();
    }

    /** A new session key: every minion re-authenticates on its next message (after a key is rejected or deleted). */
    public void rotateSessionKey() {
        session.rotate();
    }

    /**
     * Publishes a job load ({@code fun, arg, tgt, tgt_type, jid, ret, user}) to the given minions (their topics),
     * or to every subscriber when {@code minions} is null. The publisher thread adds the increasing {@code serial}.
     * The load as it goes on the wire, unchecked (what tests of the minions send as a hostile master would); the server
     * publishes typed loads through its {@link PublishQueue}.
     */
    public void publish(Map<String, Object> load, Collection<String> minions) {
        publishes.publish(load, minions);
    }

    /** Publishes sent with the topic "broadcast" since start. */
    public long broadcastFrames() {
        return broadcastFrames.get();
    }

    /** Publishes sent with one salt-minion's topic, under the shared key, since start. */
    public long targetedFrames() {
        return targetedFrames.get();
    }

    /** Publishes sent to one Drover agent under its own key since start. */
    public long agentFrames() {
        return agentFrames.get();
    }

    /** Requests refused since start for {@code reason} (claimed another id, unsigned, ...). */
    public long refusedRequests(RequestRefusal reason) {
        return refusals.get(reason).get();
    }

    /**
     * Sign-ins answered without RSA work since start because their source address was over its limit this minute
     * ({@link AddressLimits#signInsPerMinute()}).
     */
    public long refusedSignIns() {
        return signInsRefused.get();
    }

    private void publishLoop() {
        while (running) {
            PublishQueue.Publish next;
            try {
                next = publishes.poll(200);
            } catch (InterruptedException e) {
                return;
            }
            if (next == null) {
                continue;
            }
            try {
                send(next);
            } catch (RuntimeException e) {
                log.warn("publish failed", e);
            }
        }
    }

    /**
     * Publisher thread: numbers, encrypts and sends one publish. A Drover agent gets a frame of its own under its own
     * key on its topic (authenticated by the key's HMAC; an RSA signature per agent would cost seconds at thousands of
     * agents); salt-minions get the frame Salt sends, under the shared key and signed, per topic (FILTERED) or as one
     * broadcast (BROADCAST, or a job for every minion).
     */
    private void send(PublishQueue.Publish publish) {
        Map<String, Object> withSerial = new LinkedHashMap<>(publish.load());
        // Microseconds of the clock, or one more than the last: a server that took over (or restarted) numbers above
        // every frame an earlier one sent, so an old frame replayed to an agent cannot hold its serial above the new
        // server's, which would make the agent drop the new server's jobs as replays.
        long now = clock.millis() * 1000;
        withSerial.put("serial", serial.updateAndGet(last -> Math.max(last + 1, now)));
        ZmtpPublisher current = pub;
        byte[] plain = Crypticle.frame(withSerial, null);
        if (publish.minions() == null) {
            current.publish(BROADCAST, sharedFrame(plain));
            broadcastFrames.incrementAndGet();
            modes.forEach((id, mode) -> {
                if (mode == AgentMode.DROVER) {
                    sendToAgent(current, id, plain);
                }
            });
            return;
        }
        List<String> saltMinions = new java.util.ArrayList<>();
        for (String id : publish.minions()) {
            if (isAgent(id)) {
                sendToAgent(current, id, plain);
            } else {
                saltMinions.add(id);
            }
        }
        if (saltMinions.isEmpty()) {
            return;
        }
        byte[] frame = sharedFrame(plain);
        if (publishMode == PublishMode.BROADCAST) {
            current.publish(BROADCAST, frame);
            broadcastFrames.incrementAndGet();
        } else {
            for (String id : saltMinions) {
                current.publish(Messages.topic(id).getBytes(StandardCharsets.US_ASCII), frame);
            }
            targetedFrames.addAndGet(saltMinions.size());
        }
    }

    /** Salt's publish: under the shared key, signed by the master. */
    private byte[] sharedFrame(byte[] plain) {
        byte[] ct = session.current().encrypt(plain);
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("enc", "aes");
        envelope.put("load", ct);
        envelope.put("sig", Rsa.signSha1(masterKey, ct));
        return SaltPack.pack(envelope);
    }

    /** One agent's frame, made only when the agent is subscribed here (another server may serve it). */
    private void sendToAgent(ZmtpPublisher current, String id, byte[] plain) {
        String topic = Messages.topic(id);
        if (!current.subscribed(topic)) {
            return;
        }
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("enc", Messages.AGENT_ENC);
        envelope.put("load", agentKeys.of(id).encrypt(plain));
        current.publishExact(topic, SaltPack.pack(envelope));
        agentFrames.incrementAndGet();
    }

    /** Whether {@code id} is a Drover agent with a key of its own (an id never recorded is a salt-minion's). */
    private boolean isAgent(String id) {
        return recorded(id) == AgentMode.DROVER;
    }

    /**
     * The mode of an accepted minion: as heard here, else as the handler recorded it; null when never recorded. The
     * modes heard are forgotten when the session key rotates (a key was rejected or deleted, by this server or another),
     * so that a host whose Drover agent's key was deleted may sign in again as a salt-minion.
     */
    private AgentMode recorded(String id) {
        Crypticle current = session.current();
        if (current != modesUnder) {
            modes.clear();
            modesUnder = current;
        }
        AgentMode known = modes.get(id);
        if (known != null) {
            return known;
        }
        AgentMode recorded = handler.agentMode(id);
        return recorded == null ? null : remember(id, recorded);
    }

    private AgentMode remember(String id, AgentMode mode) {
        if (modes.size() >= MAX_MODES) {
            modes.clear();
        }
        modes.put(id, mode);
        return mode;
    }

    /** Records a minion's mode here and, when it changed, with the handler. */
    private void recordMode(String id, AgentMode mode) {
        if (recorded(id) != mode) {
            remember(id, mode);
            handler.onMode(id, mode);
        }
    }

    /** Request loop thread: hands a request to a worker; the reply goes back through the router from there. */
    private void onRequest(long peer, InetAddress source, List<byte[]> frames) {
        if (frames.size() != 2 || frames.get(0).length != 0) {
            log.debug("dropped a request with {} frames", frames.size());
            return;
        }
        byte[] payload = frames.get(1);
        if (!workerSlots.tryAcquire()) {
            peerWarnings.warn("busy", "all {} workers busy; a request was dropped (the minion retries)", MAX_WORKERS);
            return;
        }
        ZmtpRouter replyVia = router;
        workers.execute(() -> {
            try {
                byte[] reply = handle(payload, source);
                if (reply != null) {
                    replyVia.send(peer, EMPTY, reply);
                }
            } finally {
                workerSlots.release();
            }
        });
    }

    /** Every second: rebuilds an endpoint whose loop died or is stuck, and a publisher thread that died. */
    private void watch() {
        while (running) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            try {
                if (running && !requestLoop.alive()) {
                    rebuild("request port " + requestPort, () -> {
                        ZmtpLoop old = requestLoop;
                        router.close();
                        old.close();
                        startRouter(requestPort);
                    });
                }
                if (running && !publishLoop.alive()) {
                    rebuild("publish port " + publishPort, () -> {
                        ZmtpLoop old = publishLoop;
                        pub.close();
                        old.close();
                        startPublisher(publishPort);
                    });
                }
                if (running && !publisherThread.isAlive()) {
                    rebuild("publisher thread", () -> publisherThread = startPublisherThread());
                }
            } catch (RuntimeException e) {
                log.error("rebuilding the transport failed; trying again in a second", e);
            }
        }
    }

    private void rebuild(String what, Runnable how) {
        log.error("the salt transport's {} stopped; rebuilding it", what);
        how.run();
        restarts.incrementAndGet();
        handler.onTransportRestart(what);
    }

    /** For tests: sends a raw payload to every subscriber, as a hostile master (or a man in the middle) could. */
    void publishRawForTest(byte[] payload) {
        pub.publish(BROADCAST, payload);
    }

    /** For tests: the current session cipher, to make publishes that are encrypted but otherwise wrong. */
    Crypticle sessionForTest() {
        return session.current();
    }

    /** For tests: an agent's own session key, to make its frames. */
    Crypticle agentKeyForTest(String id) {
        return agentKeys.of(id);
    }

    /** For tests: ends the loop behind a port as a fatal error would, so that the watchdog must rebuild it. */
    void killLoopForTest(boolean requestSide) {
        (requestSide ? requestLoop : publishLoop).execute(() -> {
            throw new InternalError("killed for a test");
        });
    }

    /** For tests: a request from loopback. */
    byte[] handle(byte[] payload) {
        return handle(payload, InetAddress.getLoopbackAddress());
    }

    /**
     * One request from {@code source} in, one reply out; null when the handler deferred it ({@link RequestDeferred}): no
     * reply is sent. Never throws: anything malformed gets Salt's "bad load".
     */
    byte[] handle(byte[] payload, InetAddress source) {
        try {
            Map<?, ?> envelope = Messages.map(SaltPack.unpack(payload), "request");
            Object enc = envelope.get("enc");
            if ("clear".equals(enc)) {
                Map<?, ?> load = Messages.map(envelope.get("load"), "load");
                if ("_auth".equals(load.get("cmd"))) {
                    return signIns.tryAcquire(source) ? SaltPack.pack(auth(load)) : signInLimited(source);
                }
                peerWarnings.warn("clear", "refused a clear command other than _auth: jobs are published only by the server");
                return SaltPack.pack("clear commands are not accepted");
            }
            if ("aes".equals(enc)) {
                return aes(SaltPack.bytes(envelope.get("load")));
            }
            if (Messages.AGENT_ENC.equals(enc)) {
                return agentRequest(envelope.get("id"), SaltPack.bytes(envelope.get("load")));
            }
            return SaltPack.pack("bad load");
        } catch (MalformedFrameException | InvalidMessageException e) {
            log.debug("bad request: {}", e.getMessage());
            return SaltPack.pack("bad load");
        } catch (RequestDeferred e) {
            peerWarnings.warn("deferred", "a request was not answered, so that the minion sends it again: {}", e.getMessage());
            return null;
        } catch (RuntimeException e) {
            peerWarnings.warn("failed", "a request failed", e);
            return SaltPack.pack("bad load");
        }
    }

    /**
     * The answer to a sign-in over its address's limit: a plain string, neither signed nor stored. A salt-minion
     * takes an answer that is no map as a failed sign-in ("Sign-in attempt failed: …") and tries again after its
     * acceptance wait, longer each time; a Drover agent likewise.
     */
    private byte[] signInLimited(InetAddress source) {
        signInsRefused.incrementAndGet();
        peerWarnings.warn("sign-in-limit", "refused a sign-in from {}: over {} this minute from that address "
                + "(salt-sign-ins-per-address-per-minute); answered without RSA work", source.getHostAddress(), signIns.limit());
        return SaltPack.pack(Messages.SIGN_IN_LIMITED);
    }

    /** A request under the shared key: a salt-minion's (a Drover agent uses its own key). */
    private byte[] aes(byte[] ciphertext) {
        Crypticle current = session.current();
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
            peerWarnings.warn("not-accepted", "AES request from {} which is not accepted", Messages.validId(id) ? id : "an invalid id");
            return SaltPack.pack("bad load");
        }
        if (isAgent(id)) {
            return refuse(RequestRefusal.SHARED_KEY, "a request under the shared key claimed the id of Drover agent {}", id);
        }
        if (cmd.equals("_pillar")) {
            return SaltPack.pack(privateReply(RsaKeys.parsePublic(pubPem), "pillar", handler.onPillar(id, load), replyNonce));
        }
        if (cmd.equals("_return") || cmd.equals("_minion_event")) {
            RequestRefusal unsigned = checkSignature(id, pubPem, load);
            if (unsigned != null) {
                return refuse(unsigned, "{} from {}: signature missing or wrong", cmd, id);
            }
        }
        Object result = switch (cmd) {
            case "_return" -> handler.onReturn(id, load);
            case "_minion_event" -> {
                if (!tokenValid(pubPem, load.get("tok"))) {
                    peerWarnings.warn("token", "event from {} with a bad token", id);
                    yield false;
                }
                yield handler.onEvent(id, load);
            }
            default -> handler.onCommand(id, cmd, load);
        };
        return SaltPack.pack(current.dumps(result, replyNonce));
    }

    /**
     * Salt's {@code minion_sign_messages}: a salt-minion that signs puts {@code sig} = PKCS#1 v1.5 SHA-1 by its key
     * over {@code salt.serializers.msgpack.serialize(load)} (msgpack-python's defaults, before the channel adds the
     * nonce) into its returns and events. A present signature must verify (Salt only logs a bad one unless
     * {@code drop_messages_signature_fail}; Drover refuses it); a missing one is refused when the handler requires
     * signatures. Records the minion's mode from what it sends.
     */
    private RequestRefusal checkSignature(String id, String pubPem, Map<Object, Object> load) {
        Object sig = load.get("sig");
        if (sig == null) {
            if (handler.requireSignedMessages()) {
                return RequestRefusal.UNSIGNED;
            }
            recordMode(id, AgentMode.SALT);
            return null;
        }
        Map<Object, Object> signed = new LinkedHashMap<>(load);
        signed.remove("sig");
        if (!Rsa.verifySha1(RsaKeys.parsePublic(pubPem), SaltPack.packBinType(signed), SaltPack.bytes(sig))) {
            return RequestRefusal.BAD_SIGNATURE;
        }
        recordMode(id, AgentMode.SALT_SIGNED);
        return null;
    }

    /**
     * A Drover agent's request under its own key: the envelope names the agent, whose key must decrypt it, and the
     * load must name the same agent. The reply goes back under that key. No event token is needed: the key is the
     * agent's alone.
     */
    private byte[] agentRequest(Object envelopeId, byte[] ciphertext) {
        String pubPem = Messages.validId(envelopeId) ? handler.acceptedKey((String) envelopeId) : null;
        if (pubPem == null) {
            peerWarnings.warn("not-accepted", "agent request from {} which is not accepted",
                    Messages.validId(envelopeId) ? envelopeId : "an invalid id");
            return SaltPack.pack("bad load");
        }
        String id = (String) envelopeId;
        Crypticle key = agentKeys.of(id);
        Map<Object, Object> load;
        try {
            load = new LinkedHashMap<>(Messages.map(key.loads(ciphertext, null), "load"));
        } catch (InvalidMessageException e) {
            // also what every agent sends once after a restart of a single server, before it signs in again
            refusals.get(RequestRefusal.WRONG_KEY).incrementAndGet();
            log.debug("a request named {} is not under its key: {}", id, e.getMessage());
            return SaltPack.pack("bad load");
        }
        if (!id.equals(load.get("id"))) {
            return refuse(RequestRefusal.ID_MISMATCH, "agent {} sent a request claiming another id", id);
        }
        recordMode(id, AgentMode.DROVER);
        String replyNonce = load.remove("nonce") instanceof String s ? s : null;
        String cmd = Messages.string(load, "cmd");
        Object result = switch (cmd) {
            case "_return" -> handler.onReturn(id, load);
            case "_minion_event" -> handler.onEvent(id, load);
            case "_pillar" -> handler.onPillar(id, load);
            default -> handler.onCommand(id, cmd, load);
        };
        return SaltPack.pack(key.dumps(result, replyNonce));
    }

    private byte[] refuse(RequestRefusal reason, String message, Object... args) {
        refusals.get(reason).incrementAndGet();
        peerWarnings.warn(reason.label(), "refused (" + reason.label() + "): " + message, args);
        return SaltPack.pack("bad load");
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
        signed.put("sig", withSignature(() -> Rsa.signSha1(masterKey, data)));
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

    /** The sign-in load with its sealed enrollment token opened ({@link Messages#ENROLL_OPENED}), if it has one. */
    private Map<?, ?> withOpenedToken(Map<?, ?> load) {
        Map<Object, Object> out = new LinkedHashMap<>(load);
        out.remove(Messages.ENROLL_OPENED);
        if (load.get(Messages.ENROLL_SEALED) != null) {
            try {
                byte[] sealed = SaltPack.bytes(load.get(Messages.ENROLL_SEALED));
                String opened = new String(withSignature(() -> Rsa.decryptOaep(masterKey, sealed)), StandardCharsets.UTF_8);
                String token = EnrollmentSeal.token(opened, load.get("id") instanceof String id ? id : null,
                        load.get("pub") instanceof String pub ? pub : null);
                if (token == null) {
                    peerWarnings.warn("enroll-binding", "the sealed enrollment token in a sign-in as {} is bound to another "
                            + "id or key (copied from another sign-in?) or to none (an older agent): it is ignored",
                            load.get("id"));
                } else {
                    out.put(Messages.ENROLL_OPENED, token);
                }
            } catch (RuntimeException e) {
                peerWarnings.warn("enroll", "a sealed enrollment token from {} does not open with the master key", load.get("id"));
            }
        }
        return out;
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
        boolean probe = Boolean.TRUE.equals(load.get(Messages.ENROLL_PROBE)) && Boolean.TRUE.equals(load.get(Messages.AGENT_KEY_FLAG));
        KeyDecision decision = !Messages.validId(id) || minionPub == null ? KeyDecision.REJECTED
                : probe ? KeyDecision.PENDING // only the master's key is asked for: nothing is decided or stored
                : handler.decideKey((String) id, (String) load.get("pub"), withOpenedToken(load));
        if (decision == KeyDecision.ACCEPTED && !Boolean.TRUE.equals(load.get(Messages.AGENT_KEY_FLAG))
                && isAgent((String) id)) {
            // The public key is sent in clear at every sign-in, so anyone can present it: a Drover agent stays one
            // until its key is deleted (a host that now runs a salt-minion is accepted anew).
            refusals.get(RequestRefusal.AGENT_WITHOUT_FLAG).incrementAndGet();
            peerWarnings.warn(RequestRefusal.AGENT_WITHOUT_FLAG.label(), "refused a sign-in without the agent flag in "
                    + "the name of Drover agent {} (delete its key if the host now runs a salt-minion)", id);
            decision = KeyDecision.REJECTED;
        }
        switch (decision) {
            case PENDING -> {
                inner.put("ret", true);
                if (Boolean.TRUE.equals(load.get(Messages.AGENT_KEY_FLAG))) {
                    // A Drover agent with an enrollment token seals it to this key and signs in again.
                    inner.put("pub_key", masterPubPem);
                }
            }
            case REJECTED, DENIED -> inner.put("ret", false);
            case FULL -> inner.put("ret", "full");
            case ACCEPTED -> {
                // A Drover agent gets a key of its own instead of the shared one; a salt-minion the shared one.
                boolean agentKey = Boolean.TRUE.equals(load.get(Messages.AGENT_KEY_FLAG));
                String aes = agentKey ? agentKeys.of((String) id).keyString() : session.current().keyString();
                if (agentKey) {
                    inner.put(Messages.AGENT_KEY_FLAG, true);
                    recordMode((String) id, AgentMode.DROVER);
                } else if (recorded((String) id) != AgentMode.SALT_SIGNED) {
                    recordMode((String) id, AgentMode.SALT); // (whether it signs shows in its returns and events)
                }
                inner.put("enc", "pub");
                inner.put("pub_key", masterPubPem);
                inner.put("publish_port", publishPort);
                // Tells a Drover minion that publishes carry topics (sha1(id) or "broadcast"); a salt-minion ignores it.
                inner.put(Messages.TOPICS_FLAG, true);
                inner.put("aes", Rsa.encryptOaep(minionPub, aes.getBytes(StandardCharsets.UTF_8)));
                if (agentKey && Boolean.TRUE.equals(load.get(Messages.SIGN_ONCE_FLAG))) {
                    inner.put(Messages.SIGN_ONCE_FLAG, true); // the reply's signature below covers the sealed key
                } else {
                    byte[] digest = io.drover.core.Hashing.sha256(aes).getBytes(StandardCharsets.US_ASCII);
                    inner.put("sig", withSignature(() -> Rsa.signX931(masterKey, digest)));
                }
                if (load.get("token") != null) {
                    byte[] sealedToken = SaltPack.bytes(load.get("token"));
                    byte[] token = withSignature(() -> Rsa.decryptOaep(masterKey, sealedToken));
                    inner.put("token", Rsa.encryptOaep(minionPub, token));
                }
            }
        }
        inner.put("nonce", nonce);
        byte[] packed = SaltPack.pack(inner);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("enc", "clear");
        reply.put("load", packed);
        reply.put("sig", withSignature(() -> Rsa.signSha1(masterKey, packed)));
        return reply;
    }

    /**
     * Runs an RSA private operation of a request worker once one of {@link #signatures}' permits is free: a sign-in
     * storm then queues for the master key in arrival order, parked instead of holding a carrier thread, and the
     * other cores stay free for returns, heartbeats and the sign-ins' other steps.
     */
    private <T> T withSignature(java.util.function.Supplier<T> privateKeyWork) {
        signatures.acquireUninterruptibly();
        try {
            return privateKeyWork.get();
        } finally {
            signatures.release();
        }
    }

    /** Requests waiting for an RSA private operation with the master key (a sign-in storm shows here). */
    public int signaturesWaiting() {
        return signatures.getQueueLength();
    }

    /** Stops the watchdog, the publisher, both ports and the workers; returns within a few seconds. */
    @Override
    public void close() {
        running = false;
        watchdog.interrupt();
        router.close();
        pub.close();
        requestLoop.close();
        publishLoop.close();
        workers.shutdownNow();
        try {
            publisherThread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.drover.transport.minion;

import io.drover.transport.crypto.Crypticle;
import io.drover.transport.crypto.InvalidMessageException;
import io.drover.transport.crypto.Rsa;
import io.drover.transport.crypto.RsaKeys;
import io.drover.transport.logging.RateLimitedLog;
import io.drover.transport.protocol.Messages;
import io.drover.transport.wire.MalformedFrameException;
import io.drover.transport.wire.SaltPack;
import java.nio.charset.StandardCharsets;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The minion side of Salt's transport: authenticates with its RSA key, subscribes to the publish port (its own
 * topic and "broadcast" on a Drover server, everything on a salt-master), checks every publish (signature, HMAC, increasing serial, that it targets this
 * minion) and hands jobs to a listener; sends returns and events over one long-lived request socket with
 * timeout and retry. Re-authenticates with jitter when the master's session key changes. The sockets themselves
 * belong to a {@link MinionTransport}.
 */
public final class SaltMinion implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SaltMinion.class);
    private final RateLimitedLog dropped = new RateLimitedLog(log);

    /** Where the minion stands with the master. */
    /** Where the sign-in stands; UNREACHABLE: the master did not answer at all (a minion with several moves on). */
    public enum State { CONNECTING, UNREACHABLE, PENDING, REJECTED, FULL, CONNECTED, STOPPED }

    /** Receives jobs that passed every check; runs on its own virtual thread per job. */
    public interface JobListener {
        void onJob(SaltMinion minion, Map<?, ?> load);
    }

    private final MinionConfig config;
    private final RSAPrivateCrtKey key;
    private final String publicPem;
    private final Targets targets;
    private final JobListener listener;
    private final Consumer<String> onMasterKeyPinned;
    private final SignInListener signInListener;
    private final MinionTransport transport;
    private volatile String masterPem;
    private volatile ParsedKey masterKey;
    private volatile Crypticle session;
    private volatile byte[] tok;
    private volatile State state = State.CONNECTING;
    /** From the configuration until the master names its publish port in the sign-in reply. */
    private volatile int publishPort;
    private volatile boolean reauth;
    private final java.util.concurrent.atomic.AtomicLong signIns = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean preferredAnswers;
    private volatile long lastProbe = System.nanoTime();
    private final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean checkingKey = new java.util.concurrent.atomic.AtomicBoolean();
    /** Set by a failover: the next connection first tries the session key it has. */
    private volatile boolean moved;
    /**
     * A request to the master in use went unanswered (no try answered, or every connection was refused): with
     * several masters the minion leaves its subscription and moves to the next at once.
     */
    private volatile boolean masterSilent;
    /** The master frames publishes with topics (a Drover server says so when signing in); false for a salt-master. */
    private volatile boolean topics;
    /**
     * The session key is this minion's own (a Drover server gave it one): requests name the minion in the clear
     * envelope, jobs arrive under that key on its topic only, unsigned, and events need no token.
     */
    private volatile boolean ownKey;
    private volatile boolean running = true;
    private long lastSerial;
    /** Which of the configured masters is in use (index into {@code config.masters()}). */
    private volatile int current;
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
    private volatile Thread loop;

    /**
     * @param pinnedMasterPem the master key trusted before (null: trust on first use, then {@code onMasterKeyPinned})
     */
    public SaltMinion(MinionConfig config, RSAPrivateCrtKey key, String pinnedMasterPem, Targets targets,
                      JobListener listener, Consumer<String> onMasterKeyPinned) {
        this(config, key, pinnedMasterPem, targets, listener, onMasterKeyPinned, new ZmtpMinionTransport(config));
    }

    /** As above, telling {@code signIns} how every sign-in ends. */
    public SaltMinion(MinionConfig config, RSAPrivateCrtKey key, String pinnedMasterPem, Targets targets,
                      JobListener listener, Consumer<String> onMasterKeyPinned, SignInListener signIns) {
        this(config, key, pinnedMasterPem, targets, listener, onMasterKeyPinned, new ZmtpMinionTransport(config), signIns);
    }

    /**
     * @param transport the sockets to use (the fleet load tool runs thousands of minions over one); closed with
     *                  the minion
     */
    public SaltMinion(MinionConfig config, RSAPrivateCrtKey key, String pinnedMasterPem, Targets targets,
                      JobListener listener, Consumer<String> onMasterKeyPinned, MinionTransport transport) {
        this(config, key, pinnedMasterPem, targets, listener, onMasterKeyPinned, transport, SignInListener.NONE);
    }

    private SaltMinion(MinionConfig config, RSAPrivateCrtKey key, String pinnedMasterPem, Targets targets,
                       JobListener listener, Consumer<String> onMasterKeyPinned, MinionTransport transport,
                       SignInListener signIns) {
        this.signInListener = signIns;
        this.transport = transport;
        this.config = config;
        this.key = key;
        this.publicPem = RsaKeys.publicPem(RsaKeys.publicOf(key));
        this.masterPem = pinnedMasterPem;
        this.targets = targets;
        this.listener = listener;
        this.onMasterKeyPinned = onMasterKeyPinned;
        this.publishPort = master().publishPort();
        this.loop = transport.loopThread().name("minion-" + config.id()).start(this::run);
    }

    /** Whether the thread that signs in and receives publishes is running (it is what a heartbeat vouches for). */
    public boolean loopAlive() {
        return loop.isAlive() || !running;
    }

    /** Starts the loop again after it died; true when it had to. */
    public synchronized boolean restartLoopIfDead() {
        if (!running || loop.isAlive()) {
            return false;
        }
        reauth = false;
        state = State.CONNECTING;
        loop = transport.loopThread().name("minion-" + config.id()).start(this::run);
        return true;
    }

    public String id() {
        return config.id();
    }

    public State state() {
        return state;
    }

    private void run() {
        Duration wait = config.acceptanceWait();
        while (running) {
            State result;
            try {
                result = moved && session != null ? keepSession() : authenticate();
                moved = false;
            } catch (RuntimeException | StackOverflowError e) {
                log.error("{}: sign-in failed", config.id(), e);
                result = report(SignInListener.Result.FAILED, "sign-in failed: " + e, State.CONNECTING);
            }
            masterSilent = false;
            state = result;
            if (result == State.CONNECTED) {
                wait = config.acceptanceWait();
                try {
                    subscribe();
                } catch (RuntimeException | StackOverflowError e) {
                    log.error("{}: the subscription failed; signing in again", config.id(), e);
                    sleep(jittered(Duration.ofSeconds(1)));
                }
                // Not connected until the next sign-in: requests meanwhile fail at once instead of waiting on a
                // master that is gone (or holding the request socket that the next sign-in needs).
                state = State.CONNECTING;
                if (preferredAnswers) {
                    backToPreferred();
                } else if (masterSilent && running && config.masters().size() > 1) {
                    failOver();
                }
                continue;
            }
            if (result == State.UNREACHABLE && config.masters().size() > 1) {
                failOver();
                continue;
            }
            if (result == State.REJECTED) {
                log.warn("{}: the master rejected this minion's key", config.id());
            }
            sleep(jittered(wait));
            wait = wait.multipliedBy(2).compareTo(config.acceptanceWaitMax()) > 0 ? config.acceptanceWaitMax()
                    : wait.multipliedBy(2);
        }
        state = State.STOPPED;
    }

    /** How many times this minion signed in (got a session key) since it started. */
    public long signIns() {
        return signIns.get();
    }

    /**
     * Whether to leave the master in use for the first of the list: asked by the subscription loop about once a
     * second. With failback on and another master in use, a probe (on a thread of its own, at most every failback
     * interval) announces the minion to the first master under the session key; its acknowledgement means it is back.
     */
    private boolean stayOnThisMaster() {
        Duration every = config.failback();
        if (every == null || current == 0 || preferredAnswers) {
            return !preferredAnswers;
        }
        long now = System.nanoTime();
        if (now - lastProbe >= every.toNanos() && probing.compareAndSet(false, true)) {
            lastProbe = now;
            Thread.ofVirtual().name("failback-" + config.id()).start(() -> {
                try {
                    MinionConfig.Master first = config.masters().getFirst();
                    Map<String, Object> load = eventLoad("salt/minion/" + config.id() + "/start",
                            Map.of("id", config.id(), "moved_to", first.host() + ":" + first.requestPort()));
                    preferredAnswers = Boolean.TRUE.equals(exchange(session, load, first));
                } catch (RuntimeException e) {
                    log.debug("{}: the first master does not answer yet: {}", config.id(), e.getMessage());
                } finally {
                    probing.set(false);
                }
            });
        }
        return true;
    }

    private void backToPreferred() {
        preferredAnswers = false;
        MinionConfig.Master from = master();
        current = 0;
        publishPort = master().publishPort();
        moved = true;
        log.info("{}: the first master {} answers again; moving back from {}", config.id(), master(), from);
    }

    /** The master this minion uses now. */
    public MinionConfig.Master master() {
        return config.masters().get(current);
    }

    /**
     * The most a failover waits before it moves: the agents of a server that died spread over this much time (ten
     * thousand agents: 2,500 moves a second, each one request under the session key they keep), and yet each of them
     * answers through the next server within seconds.
     */
    static final Duration FAILOVER_JITTER = Duration.ofSeconds(4);

    /**
     * Moves to the next master in the list after a pause jittered over {@code reconnectJitter} (at most
     * {@link #FAILOVER_JITTER}), so that the agents of a server that died do not all move to the next one at the same
     * instant.
     */
    private void failOver() {
        moved = true;
        MinionConfig.Master from = master();
        current = (current + 1) % config.masters().size();
        publishPort = master().publishPort();
        Duration jitter = config.reconnectJitter().compareTo(FAILOVER_JITTER) < 0 ? config.reconnectJitter() : FAILOVER_JITTER;
        long pause = ThreadLocalRandom.current().nextLong(1 + jitter.toMillis());
        log.warn("{}: master {} does not answer; moving to {} in {} ms", config.id(), from, master(), pause);
        sleep(Duration.ofMillis(pause));
    }

    /**
     * After a failover: keeps the session key of the master it left, which the servers of a Drover cluster share, so
     * that thousands of agents moving at once do not all sign in again. The new master hears the agent's start event
     * under that key; it acknowledges it only when it holds the same key, and otherwise the agent signs in.
     */
    private State keepSession() {
        Map<String, Object> load = eventLoad("salt/minion/" + config.id() + "/start",
                Map.of("id", config.id(), "moved_to", master().host() + ":" + master().requestPort()));
        synchronized (this) {
            lastSerial = 0; // publish serials are counted per server
        }
        Object reply = exchange(session, load);
        if (reply == NOT_ACKNOWLEDGED || !Boolean.TRUE.equals(reply)) {
            log.info("{}: {} does not share the session key; signing in", config.id(), master());
            return authenticate();
        }
        reauth = false;
        log.info("{}: kept the session key on {}", config.id(), master());
        return report(SignInListener.Result.SIGNED_IN, "kept the session key", State.CONNECTED);
    }

    private void pin(String master) {
        masterPem = master;
        if (onMasterKeyPinned != null) {
            onMasterKeyPinned.accept(master);
        }
    }

    /** One sign-in: CONNECTED with a fresh session key, or why not. */
    State authenticate() {
        String nonce = Messages.nonce();
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("cmd", "_auth");
        load.put("id", config.id());
        load.put("nonce", nonce);
        load.put("pub", publicPem);
        String sealTo = masterPem;
        if (config.enrollToken() != null && sealTo != null) {
            // Only inside the part encrypted to the master's key: a token seen on the wire would admit any host.
            // Bound to this id and key: the sealed bytes are seen on the wire, and must not admit another key.
            load.put(Messages.ENROLL_SEALED, Rsa.encryptOaep(RsaKeys.parsePublic(sealTo),
                    io.drover.transport.protocol.EnrollmentSeal.plain(config.id(), publicPem, config.enrollToken())));
        } else if (config.enrollToken() != null) {
            load.put(Messages.ENROLL_PROBE, true); // first the master's key, then the token sealed to it
        }
        if (config.agentKey()) {
            load.put(Messages.AGENT_KEY_FLAG, true);
            load.put(Messages.SIGN_ONCE_FLAG, true);
        }
        Object reply;
        try {
            reply = request(SaltPack.pack(Messages.envelope("clear", load)));
        } catch (RequestTimeoutException e) {
            log.info("{}: master {} did not answer the sign-in", config.id(), master());
            return report(SignInListener.Result.UNREACHABLE, "no answer to the sign-in", State.UNREACHABLE);
        }
        if (reply instanceof String refused) {
            // e.g. too many sign-ins from this address: wait (longer each time) and try again
            log.warn("{}: master {} refused the sign-in: {}", config.id(), master(), RateLimitedLog.shown(refused, 200));
            return report(SignInListener.Result.REFUSED, refused.length() > 200 ? refused.substring(0, 200) + "..." : refused,
                    State.CONNECTING);
        }
        try {
            Map<?, ?> outer = Messages.map(reply, "sign-in reply");
            byte[] packed = SaltPack.bytes(outer.get("load"));
            Map<?, ?> inner = Messages.map(SaltPack.unpack(packed), "sign-in load");
            if (!nonce.equals(inner.get("nonce"))) {
                log.warn("{}: sign-in reply with the wrong nonce", config.id());
                return report(SignInListener.Result.FAILED, "sign-in reply with the wrong nonce", State.CONNECTING);
            }
            String advertised = inner.get("pub_key") instanceof String s ? s : null;
            String trusted = masterPem != null ? masterPem : advertised;
            if (trusted == null) {
                return reportState(stateOf(inner.get("ret")));
            }
            if (!config.trustsMasterFinger(RsaKeys.fingerprint(trusted))) {
                log.error("{}: the master's key has the fingerprint {}, not the --master-finger given; refusing it",
                        config.id(), RsaKeys.fingerprint(trusted));
                return report(SignInListener.Result.FINGERPRINT_MISMATCH, "the master's key has the fingerprint "
                        + RsaKeys.fingerprint(trusted), State.CONNECTING);
            }
            RSAPublicKey masterKey = RsaKeys.parsePublic(trusted);
            if (!Rsa.verifySha1(masterKey, packed, SaltPack.bytes(outer.get("sig")))) {
                log.error("{}: the sign-in reply is not signed by the trusted master key", config.id());
                return masterPem != null
                        ? report(SignInListener.Result.MASTER_KEY_CHANGED, "the sign-in reply is not signed by the pinned master key", State.CONNECTING)
                        : report(SignInListener.Result.FAILED, "the sign-in reply is not signed by the master's own key", State.CONNECTING);
            }
            if (!"pub".equals(inner.get("enc"))) {
                if (masterPem == null && advertised != null && config.enrollToken() != null && Boolean.TRUE.equals(inner.get("ret"))) {
                    // Pending, and the master named its key (checked against --master-finger and its signature above):
                    // pin it, then sign in again with the token sealed to it.
                    pin(advertised);
                    return authenticate();
                }
                return reportState(stateOf(inner.get("ret")));
            }
            if (masterPem != null && !RsaKeys.parsePublic(advertised).equals(masterKey)) {
                log.error("{}: the master presents a different key than the pinned one; refusing", config.id());
                return report(SignInListener.Result.MASTER_KEY_CHANGED, "the master presents the key "
                        + RsaKeys.fingerprint(advertised) + ", not the pinned one", State.CONNECTING);
            }
            String aes = new String(Rsa.decryptOaep(key, SaltPack.bytes(inner.get("aes"))), StandardCharsets.UTF_8);
            // Signed once: the reply's signature, checked above, already covers the sealed key (only if we asked).
            boolean signedOnce = config.agentKey() && Boolean.TRUE.equals(inner.get(Messages.SIGN_ONCE_FLAG))
                    && inner.get("sig") == null;
            if (!signedOnce && !new String(Rsa.recoverX931(masterKey, SaltPack.bytes(inner.get("sig"))), StandardCharsets.US_ASCII)
                    .equals(io.drover.core.Hashing.sha256(aes))) {
                log.error("{}: the session key proof does not verify", config.id());
                return report(SignInListener.Result.FAILED, "the session key proof does not verify", State.CONNECTING);
            }
            if (masterPem == null) {
                pin(advertised);
            }
            topics = Boolean.TRUE.equals(inner.get(Messages.TOPICS_FLAG));
            if (inner.get("publish_port") instanceof Long port && port > 0 && port < 65536) {
                publishPort = port.intValue();
            }
            ownKey = config.agentKey() && Boolean.TRUE.equals(inner.get(Messages.AGENT_KEY_FLAG));
            session = new Crypticle(aes);
            signIns.incrementAndGet();
            // the event token only matters on the shared key, where it is what tells minions apart
            tok = ownKey ? null : Rsa.signX931(key, "salt".getBytes(StandardCharsets.US_ASCII));
            synchronized (this) {
                lastSerial = 0;
            }
            reauth = false;
            return report(SignInListener.Result.SIGNED_IN, "signed in", State.CONNECTED);
        } catch (MalformedFrameException | InvalidMessageException | IllegalArgumentException e) {
            log.warn("{}: bad sign-in reply: {}", config.id(), e.getMessage());
            return report(SignInListener.Result.FAILED, "bad sign-in reply: " + e.getMessage(), State.CONNECTING);
        }
    }

    /** Tells the {@link SignInListener} how this sign-in ended; returns {@code state}. */
    private State report(SignInListener.Result result, String detail, State state) {
        try {
            signInListener.onSignIn(result, master(), detail);
        } catch (RuntimeException e) {
            log.warn("{}: the sign-in listener failed", config.id(), e);
        }
        return state;
    }

    private State reportState(State state) {
        return switch (state) {
            case PENDING -> report(SignInListener.Result.PENDING_ACCEPTANCE, "the master holds this key pending", state);
            case FULL -> report(SignInListener.Result.REFUSED, "the master accepts no more minions (full)", state);
            default -> report(SignInListener.Result.KEY_REJECTED, "the master rejected this key", state);
        };
    }

    private static State stateOf(Object ret) {
        if (Boolean.TRUE.equals(ret)) {
            return State.PENDING;
        }
        if ("full".equals(ret)) {
            return State.FULL;
        }
        return State.REJECTED;
    }

    private void subscribe() {
        byte[] own = Messages.topic(config.id()).getBytes(StandardCharsets.US_ASCII);
        // With a key of its own every job for this minion comes on its topic, and "broadcast" carries only what is
        // under the shared key, which it does not hold.
        List<byte[]> prefixes = ownKey ? List.of(own)
                : topics ? List.of(own, "broadcast".getBytes(StandardCharsets.US_ASCII))
                // A salt-master publishes one untagged frame by default (zmq_filtering off): take every publish
                // and let the target check decide, as a salt-minion does.
                : List.of(new byte[0]);
        transport.subscribe(master().host(), publishPort, prefixes, this::onPublish,
                () -> running && !reauth && !masterSilent && stayOnThisMaster());
        if (running && reauth) {
            sleep(jittered(Duration.ofMillis(200)));
        }
    }

    /** The trusted master key, parsed once per PEM (every publish is checked against it). */
    private RSAPublicKey masterKey() {
        String pem = masterPem;
        ParsedKey parsed = masterKey;
        if (parsed == null || !parsed.pem().equals(pem)) {
            parsed = new ParsedKey(pem, RsaKeys.parsePublic(pem));
            masterKey = parsed;
        }
        return parsed.key();
    }

    private record ParsedKey(String pem, RSAPublicKey key) {
    }

    /** Checks and dispatches one publish; anything that fails a check is dropped. */
    public void onPublish(byte[] payload) {
        try {
            checkAndDispatch(payload);
        } catch (RuntimeException | StackOverflowError e) {
            dropped.warn("unreadable", "{}: dropped a publish that could not be read: {}", config.id(), e.toString());
        }
    }

    private void checkAndDispatch(byte[] payload) {
        Map<?, ?> load;
        try {
            Map<?, ?> envelope = Messages.map(SaltPack.unpack(payload), "publish");
            byte[] ct = SaltPack.bytes(envelope.get("load"));
            boolean ownFrame = Messages.AGENT_ENC.equals(envelope.get("enc"));
            if (ownFrame != ownKey) {
                dropped.warn("enc", "{}: dropped a publish that is not under this minion's session key", config.id());
                return;
            }
            // Salt masters sign publishes (sign_pub_messages, on by default); an unsigned one is not the master's. A
            // frame under this minion's own key is authenticated by that key's HMAC, which only the master shares.
            if (!ownFrame && (envelope.get("sig") == null
                    || !Rsa.verifySha1(masterKey(), ct, SaltPack.bytes(envelope.get("sig"))))) {
                dropped.warn("signature", "{}: dropped a publish with a missing or bad signature", config.id());
                return;
            }
            load = Messages.map(session.loads(ct, null), "publish load");
        } catch (InvalidMessageException e) {
            if (ownKey) {
                checkKey(e.getMessage());
                return;
            }
            log.info("{}: cannot decrypt a publish ({}); re-authenticating", config.id(), e.getMessage());
            reauth = true;
            return;
        } catch (MalformedFrameException | IllegalArgumentException e) {
            dropped.warn("malformed", "{}: dropped a malformed publish: {}", config.id(), e.getMessage());
            return;
        }
        if (!(load.get("serial") instanceof Long serial)) {
            dropped.warn("serial", "{}: dropped a publish without serial", config.id());
            return;
        }
        synchronized (this) {
            if (serial <= lastSerial) {
                dropped.warn("replayed", "{}: dropped a replayed publish (serial {} <= {})", config.id(), serial, lastSerial);
                return;
            }
            lastSerial = serial;
        }
        if (!(load.get("jid") instanceof String) || !(load.get("fun") instanceof String) || !targeted(load)) {
            return;
        }
        // a platform thread that ends with the job for an agent with its own loop (no virtual-thread scheduler kept
        // alive in a small JVM after its first job), a virtual one where thousands of minions share a process
        transport.loopThread().name("job-" + load.get("jid")).start(() -> {
            try {
                listener.onJob(this, load);
            } catch (RuntimeException e) {
                log.warn("{}: job {} failed in the listener", config.id(), load.get("jid"), e);
            }
        });
    }

    /**
     * A frame that fails the HMAC of this minion's own key: the key changed (the master rotated it) or someone on the
     * path sent it. Rather than signing in at once, which would restart the serial count and let captured frames be
     * replayed, one request under the key (at a time, on a thread of its own) asks the master: a "bad load" answer
     * makes the minion sign in again.
     */
    private void checkKey(String why) {
        if (!checkingKey.compareAndSet(false, true)) {
            return;
        }
        dropped.warn("own-key", "{}: a publish is not under this minion's key ({}); asking the master", config.id(), why);
        Thread.ofVirtual().name("key-check-" + config.id()).start(() -> {
            try {
                aesRequest(new LinkedHashMap<>(Map.of("cmd", "_key_check", "id", config.id())));
            } finally {
                checkingKey.set(false);
            }
        });
    }

    /** Whether the publish targets this minion; a target that cannot be checked does not. */
    private boolean targeted(Map<?, ?> load) {
        try {
            return targets.matches(load.get("tgt_type") instanceof String t ? t : "glob", load.get("tgt"));
        } catch (RuntimeException | StackOverflowError e) {
            dropped.warn("target", "{}: dropped a publish whose target cannot be checked: {}", config.id(), e.toString());
            return false;
        }
    }

    /** Sends a job return; true when the master acknowledged it (any decrypted reply, Salt answers None). */
    public boolean sendReturn(io.drover.transport.envelope.JobReturn ret) {
        return sendReturn(ret.toWire());
    }

    /** As {@link #sendReturn(io.drover.transport.envelope.JobReturn)} with a return as it goes on the wire, unchecked. */
    public boolean sendReturn(Map<String, Object> ret) {
        Map<String, Object> load = new LinkedHashMap<>(ret);
        load.put("cmd", "_return");
        load.put("id", config.id());
        return aesRequest(load) != NOT_ACKNOWLEDGED;
    }

    /** Fires an event on the master's bus ({@code _minion_event}); true when acknowledged. */
    public boolean fireEvent(String tag, Map<String, Object> data) {
        return aesRequest(eventLoad(tag, data)) != NOT_ACKNOWLEDGED;
    }

    /**
     * Fires a heartbeat event, waiting for the master at most one {@code interval} (one try, not Salt's three tries
     * of a minute): a master that does not answer it is noticed within two intervals, and a minion with several
     * masters moves to the next.
     */
    public boolean heartbeat(String tag, Map<String, Object> data, Duration interval) {
        Crypticle key = session;
        if (key == null || state != State.CONNECTED) {
            return false;
        }
        Duration timeout = interval.compareTo(config.requestTimeout()) < 0 ? interval : config.requestTimeout();
        return exchange(key, eventLoad(tag, data), null, timeout, 1) != NOT_ACKNOWLEDGED;
    }

    private Map<String, Object> eventLoad(String tag, Map<String, Object> data) {
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("cmd", "_minion_event");
        load.put("id", config.id());
        if (!ownKey) {
            load.put("tok", tok);
        }
        load.put("tag", tag);
        load.put("data", data);
        load.put("pretag", null);
        return load;
    }

    /**
     * Any other encrypted request (the fileserver's {@code _file_hash}, {@code _serve_file}, {@code _file_list}):
     * the master's reply, or empty when it did not answer.
     */
    public java.util.Optional<Object> call(String cmd, Map<String, Object> args) {
        Map<String, Object> load = new LinkedHashMap<>(args);
        load.put("cmd", cmd);
        load.put("id", config.id());
        Object reply = aesRequest(load);
        return reply == NOT_ACKNOWLEDGED ? java.util.Optional.empty() : java.util.Optional.ofNullable(reply);
    }

    private static final Object NOT_ACKNOWLEDGED = new Object();

    /**
     * An encrypted request: the reply value, or {@link #NOT_ACKNOWLEDGED} when there is no session, the master
     * did not answer, or it answered "bad load" (then a re-authentication is started).
     */
    private Object aesRequest(Map<String, Object> load) {
        Crypticle current = session;
        if (current == null || state != State.CONNECTED) {
            return NOT_ACKNOWLEDGED;
        }
        return exchange(current, load);
    }

    private Object exchange(Crypticle current, Map<String, Object> load) {
        return exchange(current, load, null);
    }

    private Object exchange(Crypticle current, Map<String, Object> load, MinionConfig.Master to) {
        return exchange(current, load, to, config.requestTimeout(), config.tries());
    }

    /**
     * An encrypted request to {@code to} (null: the master in use, which is taken to be gone when no try is
     * answered).
     */
    private Object exchange(Crypticle current, Map<String, Object> load, MinionConfig.Master to, Duration timeout, int tries) {
        String nonce = Messages.nonce();
        Map<String, Object> withNonce = new LinkedHashMap<>(load);
        withNonce.put("nonce", nonce);
        try {
            byte[] ct = current.dumps(withNonce, null);
            byte[] frame = SaltPack.pack(ownKey ? Messages.agentEnvelope(config.id(), ct) : Messages.envelope("aes", ct));
            Object reply = SaltPack.unpack(transport.request(to == null ? master() : to, frame, timeout, tries));
            if (reply instanceof String s) {
                if (to == null) { // the master in use no longer reads this session key
                    log.info("{}: master answered '{}'; re-authenticating", config.id(), s);
                    reauth = true;
                }
                return NOT_ACKNOWLEDGED;
            }
            return current.loads(SaltPack.bytes(reply), nonce);
        } catch (RequestTimeoutException e) {
            if (to == null && running) {
                log.info("{}: {} did not answer the request {}", config.id(), master(), load.get("cmd"));
                masterSilent = config.masters().size() > 1;
            }
            return NOT_ACKNOWLEDGED;
        } catch (InvalidMessageException | MalformedFrameException e) {
            if (to == null) {
                log.info("{}: request {} failed: {}", config.id(), load.get("cmd"), e.getMessage());
            }
            return NOT_ACKNOWLEDGED;
        }
    }

    /** Sends one request frame and returns the decoded reply. */
    Object request(byte[] frame) {
        if (!running) {
            throw new RequestTimeoutException();
        }
        return SaltPack.unpack(transport.request(master(), frame));
    }

    private Duration jittered(Duration base) {
        long extra = ThreadLocalRandom.current().nextLong(1 + base.toMillis() / 2);
        return base.plusMillis(extra);
    }

    /** Waits, but returns at once when the minion is closed (no interrupts: they close NIO channels). */
    private void sleep(Duration d) {
        try {
            stopped.await(d.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        stopped.countDown();
        // The transport first: closing it ends a subscription or request at once, where the loop would otherwise
        // notice `running` only at its next poll (up to a second per minion, minutes for a fleet closed in turn).
        transport.close();
        try {
            loop.join(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

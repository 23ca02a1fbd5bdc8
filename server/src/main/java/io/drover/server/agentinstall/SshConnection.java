package io.drover.server.agentinstall;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.digest.BuiltinDigests;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.common.util.security.SecurityUtils;

/**
 * One SSH connection to a host (through a jump host when given) with the Apache MINA SSHD client: its host key
 * checked against {@link HostKeyStore} during the key exchange, then commands run on exec channels with bounded output.
 * Every failure is an {@link SshFailure} with one line that never holds a credential.
 */
final class SshConnection implements AutoCloseable {
    /** The host-key check of the connection being made, attached to its session. */
    static final AttributeKey<KeyCheck> CHECK = new AttributeKey<>();
    static final Duration CONNECT = Duration.ofSeconds(15);

    /** A failure on one host: one line for its row. {@code step} names the step it belongs to. */
    static final class SshFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final String step;

        SshFailure(String step, String message) {
            super(message, null, false, false);
            this.step = step;
        }
    }

    /** What the key exchange found of a host's key. */
    static final class KeyCheck {
        final String address;
        final int port;
        private final HostKeyStore keys;
        volatile HostKeyStore.Outcome outcome;

        KeyCheck(String address, int port, HostKeyStore keys) {
            this.address = address;
            this.port = port;
            this.keys = keys;
        }

        boolean verify(PublicKey key) {
            outcome = keys.check(address, port, KeyUtils.getKeyType(key), KeyUtils.getFingerPrint(BuiltinDigests.sha256, key));
            return !(outcome instanceof HostKeyStore.Changed);
        }
    }

    /** The output of a command. */
    record Result(int exit, String out, long outDropped, String err, long errDropped) {
    }

    private final ClientSession session;
    private final ClientSession jumpSession;
    final KeyCheck check;
    final KeyCheck jumpCheck;

    private SshConnection(ClientSession session, ClientSession jumpSession, KeyCheck check, KeyCheck jumpCheck) {
        this.session = session;
        this.jumpSession = jumpSession;
        this.check = check;
        this.jumpCheck = jumpCheck;
    }

    /**
     * Sets up {@code client}: nothing of the server user's own SSH setup is used (no ~/.ssh/config, no ~/.ssh/id_*
     * keys, no prompts), only the credentials of the request; every host key is checked by the check attached to its
     * session, and refused without one.
     */
    static void install(SshClient client) {
        client.setHostConfigEntryResolver(org.apache.sshd.client.config.hosts.HostConfigEntryResolver.EMPTY);
        client.setKeyIdentityProvider(org.apache.sshd.common.keyprovider.KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
        client.setPasswordIdentityProvider(org.apache.sshd.client.auth.password.PasswordIdentityProvider.EMPTY_PASSWORDS_PROVIDER);
        client.setUserInteraction(null);
        client.setServerKeyVerifier((session, remote, key) -> {
            AttributeRepository context = session.getConnectionContext();
            KeyCheck check = context == null ? null : context.getAttribute(CHECK);
            return check != null && check.verify(key);
        });
    }

    /** A jump host: {@code user@host[:port]} with its credentials; {@code connectTo}: the address checked for it. */
    record Jump(String host, int port, Credentials credentials, String connectTo) {
    }

    /**
     * Connects to {@code connectTo} (the address checked for {@code address}) and authenticates; host keys are recorded
     * under {@code address}. {@code onKey} gets each host-key outcome (the jump host's first) before authentication, so
     * the row shows it also when authentication fails.
     */
    static SshConnection open(SshClient client, String address, String connectTo, int port, Credentials credentials, Jump jump,
                              HostKeyStore keys, java.util.function.BiConsumer<KeyCheck, Boolean> onKey) throws SshFailure {
        ClientSession jumpSession = null;
        KeyCheck jumpCheck = null;
        String host = connectTo;
        int hostPort = port;
        try {
            if (jump != null) {
                jumpCheck = new KeyCheck(jump.host(), jump.port(), keys);
                jumpSession = connect(client, jump.connectTo(), jump.port(), jump.credentials(), jumpCheck, "jump host ", onKey, true);
                SshdSocketAddress local = jumpSession.startLocalPortForwarding(new SshdSocketAddress("127.0.0.1", 0),
                        new SshdSocketAddress(connectTo, port));
                host = local.getHostName();
                hostPort = local.getPort();
            }
            KeyCheck check = new KeyCheck(address, port, keys);
            ClientSession session = connectTo(client, host, hostPort, credentials, check, "", onKey);
            return new SshConnection(session, jumpSession, check, jumpCheck);
        } catch (SshFailure e) {
            closeQuietly(jumpSession);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(jumpSession);
            throw new SshFailure("connect", "cannot reach " + address + ":" + port + " through the jump host: " + reason(e));
        }
    }

    private static ClientSession connectTo(SshClient client, String host, int port, Credentials credentials, KeyCheck check,
                                           String what, java.util.function.BiConsumer<KeyCheck, Boolean> onKey) throws SshFailure {
        return connect(client, host, port, credentials, check, what, onKey, false);
    }

    private static ClientSession connect(SshClient client, String host, int port, Credentials credentials, KeyCheck check,
                                         String what, java.util.function.BiConsumer<KeyCheck, Boolean> onKey, boolean jump)
            throws SshFailure {
        String shown = check.address + ":" + check.port;
        ClientSession session;
        try {
            session = client.connect(credentials.user(), host, port, AttributeRepository.ofKeyValuePair(CHECK, check))
                    .verify(CONNECT).getSession();
        } catch (IOException | RuntimeException e) {
            throw new SshFailure("connect", "cannot connect to " + what + shown + ": " + reason(e));
        }
        try {
            credentials.keys().forEach(session::addPublicKeyIdentity);
            if (credentials.password() != null) {
                session.addPasswordIdentity(credentials.password());
            }
            try {
                session.auth().verify(CONNECT);
            } finally {
                // the outcome of the key exchange, known now (also when it refused the key)
                onKey.accept(check, check.outcome != null);
            }
            if (check.outcome instanceof HostKeyStore.Changed) {
                throw new SshFailure("host_key", changed(what, check, (HostKeyStore.Changed) check.outcome));
            }
            return session;
        } catch (SshFailure e) {
            closeQuietly(session);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(session);
            if (check.outcome instanceof HostKeyStore.Changed c) {
                throw new SshFailure("host_key", changed(what, check, c));
            }
            if (check.outcome == null) {
                throw new SshFailure("connect", "no SSH key exchange with " + what + shown + ": " + reason(e));
            }
            throw new SshFailure("authenticate", "authentication of " + LogLines.clean(credentials.user(), 64) + " on " + what
                    + shown + " failed: check the SSH key or password");
        }
    }

    private static String changed(String what, KeyCheck check, HostKeyStore.Changed c) {
        return "the host key of " + what + check.address + ":" + check.port + " changed: recorded " + c.recordedType() + " " + c.recorded()
                + ", presented " + c.presentedType() + " " + c.presented()
                + "; if the host was re-installed: drover agent host-key forget " + forgetArgument(check.address, check.port) + ", then retry";
    }

    /** HOST:PORT as drover agent host-key forget takes it: an IPv6 address in brackets. */
    static String forgetArgument(String address, int port) {
        return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + port;
    }

    /** The reason of a connection failure in a few words (no exception text that could hold more). */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return "connection refused";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host";
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (t instanceof SocketTimeoutException || t instanceof java.util.concurrent.TimeoutException) {
                return "timed out";
            }
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return LogLines.clean(message, 200);
    }

    /** Runs {@code command} with {@code stdin} (may be null), keeping at most {@code maxOut} bytes of each output. */
    Result exec(String step, String command, InputStream stdin, int maxOut, Duration timeout) throws SshFailure {
        BoundedOutput out = new BoundedOutput(maxOut);
        BoundedOutput err = new BoundedOutput(maxOut);
        try (ChannelExec channel = session.createExecChannel(command)) {
            channel.setIn(stdin == null ? new ByteArrayInputStream(new byte[0]) : stdin);
            channel.setOut(out);
            channel.setErr(err);
            channel.open().verify(CONNECT);
            Set<ClientChannelEvent> events = channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), timeout);
            if (events.contains(ClientChannelEvent.TIMEOUT)) {
                throw new SshFailure(step, step + " did not finish within " + timeout.toSeconds() + " s");
            }
            Integer exit = channel.getExitStatus();
            return new Result(exit == null ? -1 : exit, out.text(), out.dropped(), err.text(), err.dropped());
        } catch (IOException | RuntimeException e) {
            throw new SshFailure(step, step + " failed: the SSH connection broke (" + reason(e) + ")");
        }
    }

    @Override
    public void close() {
        closeQuietly(session);
        closeQuietly(jumpSession);
    }

    private static void closeQuietly(ClientSession s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException | RuntimeException e) {
                // closing: nothing left to do
            }
        }
    }

    /** The key pairs of a PEM text (OpenSSH or PKCS#8 / PKCS#1, unencrypted); a failure says nothing of its content. */
    static List<KeyPair> keyPairs(String pem) {
        try {
            List<KeyPair> pairs = new ArrayList<>();
            Iterable<KeyPair> loaded = SecurityUtils.loadKeyPairIdentities(null,
                    org.apache.sshd.common.NamedResource.ofName("ssh_private_key"),
                    new ByteArrayInputStream(pem.getBytes(java.nio.charset.StandardCharsets.UTF_8)), null);
            if (loaded != null) {
                loaded.forEach(pairs::add);
            }
            return pairs;
        } catch (Exception e) {
            return List.of();
        }
    }
}

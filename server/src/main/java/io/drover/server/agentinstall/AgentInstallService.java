package io.drover.server.agentinstall;

import io.drover.core.agents.AllowedTargets;
import io.drover.model.agentinstall.AgentInstallHost;
import io.drover.model.agentinstall.AgentInstallRequest;
import io.drover.model.agentinstall.AgentInstallRetry;
import io.drover.model.agentinstall.AgentInstallTask;
import io.drover.model.agentinstall.InstallStatus;
import io.drover.model.agentinstall.SshHostKey;
import io.drover.model.agents.CreatedEnrollmentToken;
import io.drover.model.agents.EnrollmentTokenRequest;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Host;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.auth.Principal;
import io.drover.server.errors.DomainException;
import io.drover.server.inventory.InventoryService;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;
import org.apache.sshd.client.SshClient;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Agent installs over SSH (NodeMan's way): checks a request, creates the task with a row per host, and runs the hosts
 * at most {@code concurrency} at a time, each on a virtual thread. The SSH credentials live in this run's memory only.
 * Each host gets its own single-use enrollment token (valid for its agent id only, revoked when its install ends),
 * so a host cannot use what it was given to admit another agent.
 */
public final class AgentInstallService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AgentInstallService.class);

    static final int MAX_HOSTS = 5000;
    static final int DEFAULT_CONCURRENCY = 50;
    static final int MAX_CONCURRENCY = 200;
    private static final Pattern ADDRESS = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.:-]{0,252}");
    private static final Pattern USER = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}");
    private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9._@-]{1,255}");
    private static final Pattern IP = Pattern.compile("[0-9A-Fa-f.:]{2,45}");
    private static final Pattern MASTER = Pattern.compile("(\\[[0-9A-Fa-f:.]{2,45}]|[A-Za-z0-9][A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?");
    private static final Pattern FINGER = Pattern.compile("[A-Za-z0-9:+/=]{8,200}");
    private static final Pattern PREFIX = Pattern.compile("/[A-Za-z0-9._/+-]{0,1023}");
    private static final Pattern VERSION = Pattern.compile("[0-9][0-9A-Za-z.+-]{0,63}");
    private static final Pattern JUMP = Pattern.compile("([A-Za-z_][A-Za-z0-9_.-]{0,31})@([A-Za-z0-9][A-Za-z0-9.:-]{0,252}?)(?::([0-9]{1,5}))?");
    private static final Set<String> SERVICES = Set.of("auto", "systemd", "process", "none");
    private static final int MAX_KEY = 16 * 1024;
    private static final int MAX_PASSWORD = 1024;
    private static final Duration LINK_WAIT = Duration.ofSeconds(30);

    private final InstallStore store;
    private final HostKeyStore keys;
    private final AgentPackageFiles packages;
    private final EnrollmentTokenStore enrollment;
    private final AgentRegistry agents;
    private final InventoryService inventory;
    private final List<String> defaultMasters;
    /** This server's key fingerprint: what an installed agent pins when the request names none. */
    private final String masterFinger;
    private final SshTargets targets;
    private final Clock clock;
    private final SshClient client;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("agent-install-", 0).factory());
    /** Tasks running on this server, so that a retry waits for the end of its task. */
    private final Set<Long> running = ConcurrentHashMap.newKeySet();

    public AgentInstallService(Jdbi jdbi, AgentPackageFiles packages, EnrollmentTokenStore enrollment, AgentRegistry agents,
                               InventoryService inventory, List<String> defaultMasters, String masterFinger, AllowedTargets allowedTargets,
                               boolean alone, Clock clock) {
        this.store = new InstallStore(jdbi, clock);
        this.masterFinger = masterFinger;
        this.keys = new HostKeyStore(jdbi, clock);
        this.packages = packages;
        this.enrollment = enrollment;
        this.agents = agents;
        this.inventory = inventory;
        this.defaultMasters = List.copyOf(defaultMasters);
        this.targets = new SshTargets(allowedTargets);
        this.clock = clock;
        this.client = SshClient.setUpDefaultClient();
        SshConnection.install(client);
        client.start();
        // alone, a task still running is one this server's last run left; in a cluster it may be another server's
        int interrupted = alone ? store.failInterrupted() : 0;
        if (interrupted > 0) {
            log.warn("{} agent install task(s) were interrupted by the last stop: their unfinished hosts failed (retry them)", interrupted);
        }
    }

    public AgentInstallTask start(Principal p, AgentInstallRequest r) {
        List<FieldError> errors = new ArrayList<>();
        if (r == null) {
            throw DomainException.invalid("hosts", "is required");
        }
        if (r.bkBizId() == null) {
            errors.add(new FieldError("bk_biz_id", "is required: the business the agents are enrolled in"));
        } else {
            p.requireBiz(r.bkBizId());
        }
        List<InstallStore.NewHost> hosts = hosts(r.hosts(), errors);
        Credentials credentials = credentials("ssh", r.sshUser(), r.sshPrivateKey(), r.sshPassword(), errors);
        SshConnection.Jump jump = jump(r.jump(), r.jumpPrivateKey(), r.jumpPassword(), credentials, errors);
        int concurrency = r.concurrency() == null ? DEFAULT_CONCURRENCY : r.concurrency();
        if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
            errors.add(new FieldError("concurrency", "must be 1 to " + MAX_CONCURRENCY));
        }
        HostInstall.Plan plan = plan(r, credentials, jump, errors);
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        inventory.business(p, r.bkBizId());
        hostsOf(r.bkBizId(), hosts);
        List<SshTargets.Target> wanted = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            wanted.add(new SshTargets.Target("hosts[" + i + "].address", hosts.get(i).address(), hosts.get(i).port()));
        }
        Map<String, String> addresses = checked(wanted, jump);
        long id = store.create(r.bkBizId(), p.name(), credentials.user(), r.jump(), plan.masters(), concurrency, hosts);
        log.info("agent install {}: {} host(s) in business {} by {}", id, hosts.size(), r.bkBizId(), p.name());
        AgentInstallTask task = store.get(id);
        launch(p, task, task.hosts(), plan.with(credentials, connectedJump(jump, addresses)), concurrency, addresses);
        return task;
    }

    /** Runs the failed hosts of a finished task again with credentials given again. */
    public synchronized AgentInstallTask retry(Principal p, long id, AgentInstallRetry r) {
        AgentInstallTask task = get(p, id);
        if (running.contains(id) || task.status() == InstallStatus.RUNNING) {
            throw DomainException.conflict("install_running", "agent install " + id + " is still running: retry it when it has ended");
        }
        List<FieldError> errors = new ArrayList<>();
        AgentInstallRetry given = r == null ? new AgentInstallRetry(null, null, null, null) : r;
        Credentials credentials = credentials("ssh", task.sshUser(), given.sshPrivateKey(), given.sshPassword(), errors);
        SshConnection.Jump jump = jump(task.jump(), given.jumpPrivateKey(), given.jumpPassword(), credentials, errors);
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        HostInstall.Plan before = plans.get(id);
        if (before == null) {
            throw DomainException.conflict("install_gone", "agent install " + id
                    + " ran on another server or before a restart: start a new install for its failed hosts");
        }
        List<SshTargets.Target> wanted = new ArrayList<>();
        for (int i = 0; i < task.hosts().size(); i++) {
            AgentInstallHost h = task.hosts().get(i);
            if (h.status() == InstallStatus.FAILED) {
                wanted.add(new SshTargets.Target("hosts[" + i + "].address", h.address(), h.port()));
            }
        }
        // checked again: a name may resolve to another address now
        Map<String, String> addresses = checked(wanted, jump);
        List<Long> reopened = store.reopenFailed(id);
        if (reopened.isEmpty()) {
            throw DomainException.conflict("nothing_failed", "agent install " + id + " has no failed host to retry");
        }
        AgentInstallTask reopenedTask = store.get(id);
        launch(p, reopenedTask, reopenedTask.hosts().stream().filter(h -> reopened.contains(h.id())).toList(),
                before.with(credentials, connectedJump(jump, addresses)), task.concurrency(), addresses);
        return reopenedTask;
    }

    /** The options of each task run here, without its credentials, for a retry. */
    private final Map<Long, HostInstall.Plan> plans = new ConcurrentHashMap<>();

    public AgentInstallTask get(Principal p, long id) {
        AgentInstallTask task = store.get(id);
        if (!p.mayTouch(task.bkBizId())) {
            throw DomainException.notFound("agent install", id);
        }
        return task;
    }

    public List<AgentInstallTask> list(Principal p) {
        return store.list(500).stream().filter(t -> p.mayTouch(t.bkBizId())).toList();
    }

    public List<SshHostKey> hostKeys() {
        return keys.list();
    }

    /** Forgets the host key recorded for {@code address} and {@code port} (path parameters, checked here). */
    public void forgetHostKey(Principal p, String address, String port) {
        List<FieldError> errors = new ArrayList<>();
        if (address == null || !ADDRESS.matcher(address).matches()) {
            errors.add(new FieldError("address", "must be a host name or an IP address (letters, digits, '.', ':', '-'; "
                    + "an IPv6 address without brackets)"));
        }
        int number = port != null && port.matches("[0-9]{1,5}") ? Integer.parseInt(port) : 0;
        if (number < 1 || number > 65535) {
            errors.add(new FieldError("port", "must be 1 to 65535"));
        }
        if (!errors.isEmpty()) {
            throw DomainException.invalid(errors);
        }
        if (!keys.forget(address, number)) {
            throw DomainException.notFound("host key of", SshConnection.forgetArgument(address, number));
        }
        log.info("the host key of {}:{} was forgotten by {}: the next contact records the key it presents", address, number, p.name());
    }

    /** The hosts and the jump host checked against agent-install-allowed-targets: the address to connect to for each. */
    private Map<String, String> checked(List<SshTargets.Target> hosts, SshConnection.Jump jump) {
        List<SshTargets.Target> all = new ArrayList<>(hosts);
        if (jump != null) {
            all.add(new SshTargets.Target("jump", jump.host(), jump.port()));
        }
        return targets.check(all);
    }

    private static SshConnection.Jump connectedJump(SshConnection.Jump jump, Map<String, String> addresses) {
        return jump == null ? null : new SshConnection.Jump(jump.host(), jump.port(), jump.credentials(), addresses.get(jump.host()));
    }

    private void launch(Principal p, AgentInstallTask task, List<AgentInstallHost> hosts, HostInstall.Plan plan, int concurrency,
                        Map<String, String> addresses) {
        plans.put(task.id(), plan.with(null, null));
        running.add(task.id());
        Principal acting = p;
        Map<String, Optional<AgentPackageFiles.PackageFile>> resolved = new ConcurrentHashMap<>();
        threads.submit(() -> {
            Semaphore slots = new Semaphore(concurrency);
            List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
            long startedAt = System.nanoTime();
            try (ExecutorService perHost = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("agent-install-" + task.id() + "-", 0).factory())) {
                for (AgentInstallHost host : hosts) {
                    slots.acquireUninterruptibly();
                    runs.add(perHost.submit(() -> {
                        try {
                            new HostInstall(client, keys, store, clock, host, addresses.get(host.address()), plan,
                                    needs(acting, task, host, resolved)).run();
                        } finally {
                            slots.release();
                        }
                    }));
                }
            } finally {
                store.finish(task.id());
                running.remove(task.id());
                log.info("agent install {} ended after {} s", task.id(), Duration.ofNanos(System.nanoTime() - startedAt).toSeconds());
            }
        });
    }

    private HostInstall.Needs needs(Principal p, AgentInstallTask task, AgentInstallHost host,
                                    Map<String, Optional<AgentPackageFiles.PackageFile>> resolved) {
        return new HostInstall.Needs() {
            private Long tokenId;

            @Override
            public Optional<AgentPackageFiles.PackageFile> packageFor(String version, String arch) {
                // hashed once per task and architecture, not once per host
                return resolved.computeIfAbsent(version + "/" + arch,
                        k -> version == null ? packages.newest(arch) : packages.find(version, arch));
            }

            @Override
            public String token(String agentId) {
                CreatedEnrollmentToken created = enrollment.create(p, new EnrollmentTokenRequest(
                        LogLines.clean("agent install " + task.id() + ": " + agentId, 120), task.bkBizId(), 1L, 1L, agentId));
                tokenId = created.info().id();
                return created.token();
            }

            @Override
            public String awaitLink(String agentId, Long bkHostId, String innerIp) {
                return link(task.bkBizId(), agentId, bkHostId, innerIp);
            }

            @Override
            public void ended() {
                if (tokenId != null) {
                    try {
                        enrollment.revoke(p, tokenId);
                    } catch (RuntimeException e) {
                        log.warn("agent install {}: revoking the enrollment token of {} failed ({}); it expires within an hour",
                                task.id(), host.agentId(), e.getClass().getSimpleName());
                    }
                }
            }
        };
    }

    private String link(long bizId, String agentId, Long bkHostId, String innerIp) {
        Long expected = bkHostId;
        if (expected == null && innerIp != null) {
            List<Host> found = inventory.findHosts(innerIp).stream()
                    .filter(h -> innerIp.equals(h.bkHostInnerip()) && Long.valueOf(bizId).equals(h.bkBizId())).toList();
            expected = found.size() == 1 ? found.get(0).bkHostId() : null;
        }
        Instant until = clock.instant().plus(LINK_WAIT);
        Long linked = agents.hostOf(agentId);
        while (linked == null && clock.instant().isBefore(until)) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted while waiting for the link";
            }
            linked = agents.hostOf(agentId);
        }
        if (linked == null) {
            return "the agent " + agentId + " signed in but was not linked to an inventory host within " + LINK_WAIT.toSeconds()
                    + " s: see drover agent list for its link conflict, and --ip";
        }
        if (expected != null && !expected.equals(linked)) {
            return "the agent " + agentId + " was linked to host " + linked + ", not to host " + expected;
        }
        return null;
    }

    /** Refuses a bk_host_id that is not a host of the task's business (another business's, or none). */
    private void hostsOf(long bizId, List<InstallStore.NewHost> hosts) {
        List<Long> ids = hosts.stream().map(InstallStore.NewHost::bkHostId).filter(java.util.Objects::nonNull).toList();
        if (ids.isEmpty()) {
            return;
        }
        Map<Long, Long> businesses = inventory.hostBusinesses(ids);
        List<FieldError> errors = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            Long id = hosts.get(i).bkHostId();
            if (id != null && !Long.valueOf(bizId).equals(businesses.get(id))) {
                errors.add(new FieldError("hosts[" + i + "].bk_host_id", "is not a host of business " + bizId));
            }
        }
        if (!errors.isEmpty()) {
            throw DomainException.forbidden("the hosts must be hosts of business " + bizId, errors);
        }
    }

    private List<InstallStore.NewHost> hosts(List<AgentInstallRequest.InstallHost> given, List<FieldError> errors) {
        List<InstallStore.NewHost> hosts = new ArrayList<>();
        if (given == null || given.isEmpty()) {
            errors.add(new FieldError("hosts", "is required: at least one host"));
            return hosts;
        }
        if (given.size() > MAX_HOSTS) {
            errors.add(new FieldError("hosts", "has " + given.size() + " hosts; at most " + MAX_HOSTS + " in one task"));
            return hosts;
        }
        Set<String> seen = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < given.size(); i++) {
            AgentInstallRequest.InstallHost h = given.get(i);
            String field = "hosts[" + i + "]";
            if (h == null || h.address() == null || !ADDRESS.matcher(h.address()).matches()) {
                errors.add(new FieldError(field + ".address", "must be a host name or an IP address (letters, digits, '.', ':', '-')"));
                continue;
            }
            int port = h.port() == null ? 22 : h.port();
            if (port < 1 || port > 65535) {
                errors.add(new FieldError(field + ".port", "must be 1 to 65535"));
                continue;
            }
            String id = h.id() == null ? h.address() : h.id();
            if (!AGENT_ID.matcher(id).matches()) {
                errors.add(new FieldError(field + ".id", "must be 1 to 255 letters, digits, '.', '_', '@', '-'"));
                continue;
            }
            if (h.innerIp() != null && !IP.matcher(h.innerIp()).matches()) {
                errors.add(new FieldError(field + ".inner_ip", "must be an IP address"));
                continue;
            }
            if (h.prefix() != null && (!PREFIX.matcher(h.prefix()).matches() || h.prefix().contains(".."))) {
                errors.add(new FieldError(field + ".prefix", "must be an absolute path of letters, digits, '.', '_', '/', '+', '-' without '..'"));
                continue;
            }
            if (!seen.add(h.address() + ":" + port)) {
                errors.add(new FieldError(field + ".address", h.address() + ":" + port + " is given twice"));
                continue;
            }
            if (!ids.add(id)) {
                errors.add(new FieldError(field + ".id", "agent id " + id + " is given twice"));
                continue;
            }
            hosts.add(new InstallStore.NewHost(h.address(), port, id, h.innerIp(), h.bkHostId(), h.prefix()));
            if (errors.size() > 20) {
                break;
            }
        }
        return hosts;
    }

    private static Credentials credentials(String field, String user, String privateKey, String password, List<FieldError> errors) {
        if (user == null || !USER.matcher(user).matches()) {
            errors.add(new FieldError(field + "_user", "must be a user name (letters, digits, '_', '.', '-', at most 32)"));
        }
        if ((privateKey == null) == (password == null)) {
            errors.add(new FieldError(field + "_private_key", "give either " + field + "_private_key or " + field + "_password"));
            return new Credentials(user, List.of(), null);
        }
        if (password != null) {
            if (password.isEmpty() || password.length() > MAX_PASSWORD) {
                errors.add(new FieldError(field + "_password", "must be 1 to " + MAX_PASSWORD + " characters"));
            }
            return new Credentials(user, List.of(), password);
        }
        List<KeyPair> pairs = privateKey.length() > MAX_KEY ? List.of() : SshConnection.keyPairs(privateKey);
        if (pairs.isEmpty()) {
            errors.add(new FieldError(field + "_private_key", "is not an unencrypted private key in PEM or OpenSSH format "
                    + "(RSA or ECDSA; at most 16 KiB)"));
        }
        return new Credentials(user, pairs, null);
    }

    private static SshConnection.Jump jump(String jump, String key, String password, Credentials same, List<FieldError> errors) {
        if (jump == null) {
            return null;
        }
        var m = JUMP.matcher(jump);
        if (!m.matches()) {
            errors.add(new FieldError("jump", "must be user@host or user@host:port"));
            return null;
        }
        int port = m.group(3) == null ? 22 : Integer.parseInt(m.group(3));
        if (port < 1 || port > 65535) {
            errors.add(new FieldError("jump", "port must be 1 to 65535"));
            return null;
        }
        Credentials credentials = key == null && password == null ? new Credentials(m.group(1), same.keys(), same.password())
                : credentials("jump", m.group(1), key, password, errors);
        return new SshConnection.Jump(m.group(2), port, credentials, m.group(2));
    }

    private HostInstall.Plan plan(AgentInstallRequest r, Credentials credentials, SshConnection.Jump jump, List<FieldError> errors) {
        List<String> masters = r.masters() == null || r.masters().isEmpty() ? defaultMasters : r.masters();
        if (masters.isEmpty()) {
            errors.add(new FieldError("masters", "is required: the address(es) HOST:PORT of this server's agent transport "
                    + "that the hosts reach (salt-host is not an address they can use)"));
        } else if (masters.size() > 16 || masters.stream().anyMatch(m -> m == null || !MASTER.matcher(m).matches())) {
            errors.add(new FieldError("masters", "must be 1 to 16 addresses HOST[:PORT]"));
        }
        if (r.masterFinger() != null && !FINGER.matcher(r.masterFinger()).matches()) {
            errors.add(new FieldError("master_finger", "is not a key fingerprint"));
        }
        if (r.publishPort() != null && (r.publishPort() < 1 || r.publishPort() > 65535)) {
            errors.add(new FieldError("publish_port", "must be 1 to 65535"));
        }
        if (r.prefix() != null && (!PREFIX.matcher(r.prefix()).matches() || r.prefix().contains(".."))) {
            errors.add(new FieldError("prefix", "must be an absolute path of letters, digits, '.', '_', '/', '+', '-' without '..'"));
        }
        if (r.service() != null && !SERVICES.contains(r.service())) {
            errors.add(new FieldError("service", "must be auto, systemd, process or none"));
        }
        int wait = r.waitSeconds() == null ? 60 : r.waitSeconds();
        if (wait < 1 || wait > 3600) {
            errors.add(new FieldError("wait_seconds", "must be 1 to 3600"));
        }
        if (r.packageVersion() != null && !VERSION.matcher(r.packageVersion()).matches()) {
            errors.add(new FieldError("package_version", "is not a version"));
        }
        // The installed agent trusts only this server's key unless told another: left unpinned, whoever answered first
        // on the master address would be pinned as its master and be handed its enrollment token.
        String finger = r.masterFinger() != null ? r.masterFinger() : masterFinger;
        return new HostInstall.Plan(credentials, jump, r.packageVersion(), masters, finger, r.publishPort(),
                r.prefix(), r.service(), wait);
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            client.stop();
        } catch (RuntimeException e) {
            log.debug("closing the SSH client", e);
        }
    }
}

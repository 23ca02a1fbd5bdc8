package io.drover.server;

import io.drover.core.match.Glob;
import io.drover.server.addons.AddonRoutes;
import io.drover.server.addons.AddonService;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.inventory.InventoryImport;
import io.drover.server.packages.PackageRoutes;
import io.drover.server.packages.PackageStore;
import io.drover.server.registries.Registries;
import io.drover.server.registries.RegistryRoutes;
import io.drover.server.store.SecretBox;
import io.drover.server.subscriptions.planning.AgentDirectory;
import io.drover.server.subscriptions.DeploymentStore;
import io.drover.server.subscriptions.planning.PlanBuilder;
import io.drover.server.subscriptions.SubscriptionRoutes;
import io.drover.server.subscriptions.SubscriptionService;
import io.drover.server.subscriptions.SubscriptionStore;
import io.drover.server.subscriptions.execution.TaskRepository;
import io.drover.server.subscriptions.execution.TaskScheduler;
import io.drover.server.subscriptions.Triggers;
import io.drover.server.agents.AgentRoutes;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.auth.AdminTokenFile;
import io.drover.server.auth.AuditStore;
import io.drover.server.auth.AuthFailures;
import io.drover.server.auth.AuthRoutes;
import io.drover.server.auth.TokenStore;
import io.drover.server.config.ServerConfig;
import io.drover.server.cluster.Leadership;
import io.drover.server.cluster.WorkLeaseStore;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventRoutes;
import io.drover.server.events.EventStore;
import io.drover.server.files.FileServer;
import io.drover.server.http.HttpApi;
import io.drover.server.inventory.InventoryRepository;
import io.drover.server.jobs.JobRoutes;
import io.drover.server.plans.ExecutionPlans;
import io.drover.server.plans.PlanRoutes;
import io.drover.server.jobs.JobService;
import io.drover.server.agentlink.SaltBridge;
import io.drover.server.keys.KeyStore;
import io.drover.server.keys.MasterKeyFile;
import io.drover.server.inventory.InventoryRoutes;
import io.drover.server.inventory.InventoryService;
import io.drover.server.ops.OpsRoutes;
import io.drover.server.store.Database;
import io.drover.transport.master.PublishQueue;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.master.SessionKey;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The control plane's assembly: builds every part with its constructor, starts them, stops them in reverse. */
public final class DroverServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DroverServer.class);

    private final ServerConfig config;
    private final Database database;
    private final EventBus bus;
    private final EventStore events;
    private final TokenStore tokens;
    private final InventoryService inventory;
    private final InventoryImport inventoryImport;
    private final HttpApi api;
    private final KeyStore keys;
    private final JobService jobs;
    private final AgentRegistry agents;
    private final EnrollmentTokenStore enrollment;
    private final FileServer files;
    private final PackageStore packages;
    private final io.drover.server.agentpackages.AgentPackageService agentPackages;
    private final Registries registries;
    private final AddonService addons;
    private final TaskScheduler tasks;
    private final Triggers triggers;
    private final SubscriptionService subscriptions;
    private final io.drover.server.diagnosis.DiagnosisModule diagnosis;
    private final SaltMaster master;
    private final io.drover.server.agentinstall.AgentInstallService agentInstalls;
    private final io.drover.server.agentupgrade.AgentUpgradeService agentUpgrades;
    private final PrometheusMeterRegistry metrics;
    private final ScheduledExecutorService housekeeping;
    private final io.drover.server.cluster.NatsCluster cluster;
    private final Leadership leadership;
    private final WorkLeaseStore leases;
    /** The session key shared with the cluster; null on a server alone. */
    private final io.drover.server.cluster.SharedSessionKey sharedKey;
    private final AuditStore audit;
    private final io.drover.server.ops.Retention retention;
    private final AuthFailures authFailures;
    private final Path adminTokenFile;
    /** Replaces the HTTPS certificate when its files change; null when the API serves plain HTTP. */
    private final io.drover.server.http.CertificateWatcher certificates;

    /** How often the files of tls-cert and tls-key are looked at for a renewed certificate. */
    private static final long CERTIFICATE_CHECK_SECONDS = 2;

    private DroverServer(ServerConfig config) {
        this.config = config;
        createDataDir(config.dataDir());
        this.database = Database.open(config.dbUrl(), config.dbUser(), config.dbPassword(), config.dbPoolSize(), config.sqliteSync());
        SaltMaster bound = null;
        io.drover.server.cluster.NatsCluster joined = null;
        try {
            this.metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new JvmMemoryMetrics().bindTo(metrics);
            new JvmGcMetrics().bindTo(metrics);
            new JvmThreadMetrics().bindTo(metrics);
            new ProcessorMetrics().bindTo(metrics);

            Clock clock = Clock.systemUTC();
            this.bus = new EventBus();
            this.events = new EventStore(database.jdbi(), bus, clock);
            this.tokens = new TokenStore(database.jdbi(), clock);
            this.audit = new AuditStore(database.jdbi(), clock);
            this.authFailures = new AuthFailures(config.authFailuresPerMinute(), clock);
            this.inventory = new InventoryService(database.jdbi(), new InventoryRepository(), events);
            this.inventoryImport = new InventoryImport(database.jdbi(), new InventoryRepository(), events);

            this.api = new HttpApi(tokens, audit, authFailures, metrics,
                    io.drover.server.http.ClientAddress.trusting(config.trustedProxies()));
            new AuthRoutes(tokens, audit).register(api);
            new InventoryRoutes(inventory, inventoryImport).register(api);
            new EventRoutes(bus, events).register(api);

            this.leadership = config.cluster() == null ? Leadership.alone()
                    : Leadership.shared(config.dbUrl(), config.dbUser(), config.dbPassword());
            // the server holding the pruning duty also marks lost the agents of servers that stopped
            Leadership duties = leadership;
            this.agents = new AgentRegistry(database.jdbi(), events, inventory, config.agentBiz(), clock,
                    () -> duties.leads(Leadership.Duty.PRUNING));
            this.enrollment = new EnrollmentTokenStore(database.jdbi(), clock);
            new AgentRoutes(agents, enrollment).register(api);
            this.agentPackages = new io.drover.server.agentpackages.AgentPackageService(
                    new io.drover.server.agentpackages.AgentPackageStore(database.jdbi()), config.dataDir().resolve("agent-packages"),
                    config.dataDir().resolve("files"), config.agentPackageMaxBytes(), clock);
            agentPackages.removeLeftovers();
            Path distributed = config.agentPackagesDir();
            if (distributed != null) {
                int registered = agentPackages.registerFrom(distributed);
                if (registered > 0) {
                    log.info("registered {} agent package(s) from {}", registered, distributed);
                }
            }
            new io.drover.server.agentpackages.AgentPackageRoutes(agentPackages, enrollment::check).register(api);
            this.packages = new PackageStore(database.jdbi(), config.dataDir().resolve("files"), clock);
            int chunked = packages.storeMissingChunks();
            if (chunked > 0) {
                log.info("stored {} package archive(s) in the database (from before packages were kept there)", chunked);
            }
            // A package uploaded through another server of a cluster is restored from the database when asked for.
            // An agent package (for an upgrade another server runs) too.
            Path filesDir = config.dataDir().resolve("files");
            this.files = new FileServer(filesDir, path -> packages.restoreFile(path) || agentPackages.restoreFile(path));
            SecretBox secrets = SecretBox.loadOrCreate(config.dataDir(), System.getenv(SecretBox.KEY_ENV));
            SessionKey session = new SessionKey();
            // The servers of a cluster share one session key, so that an agent moving between them keeps its session.
            this.sharedKey = config.cluster() == null ? null : new io.drover.server.cluster.SharedSessionKey(
                    new io.drover.server.cluster.SessionKeyStore(database.jdbi(), secrets, SessionKey::newKeyString, events, clock),
                    session);
            this.keys = new KeyStore(database.jdbi(), events, config.autoAccept().stream().map(Glob::compile).toList(),
                    enrollment, agents, sharedKey == null ? session::rotate : sharedKey::rotate, config.maxPendingKeys(), clock);
            PublishQueue publishes = new PublishQueue();
            // In a cluster a job goes to this server's agents and, through NATS, to every other server's.
            // Cluster messages are sealed under a key derived from the secret key every server of the cluster holds
            // (it opens the shared session key), which neither NATS nor the agents know.
            joined = config.cluster() == null ? null
                    : io.drover.server.cluster.NatsCluster.join(config.cluster(), config.natsCredentials(),
                    secrets.derive(io.drover.server.cluster.NatsCluster.KEY_LABEL), clock, publishes, bus);
            this.cluster = joined;
            io.drover.transport.envelope.JobPublisher publish = cluster == null ? publishes : (load, minions) -> {
                        publishes.publish(load, minions);
                        cluster.publish(load, minions);
                    };
            this.jobs = new JobService(database.jdbi(), events, keys, agents::grains, agents::businesses, config.nodegroups(),
                    publish, bus::wantPeerReturns, config.returnMaxBytes(), secrets, clock);
            // an agent that went offline leaves its unfinished jobs AGENT_LOST (the registry writes the event once)
            bus.subscribe(e -> e.tag().startsWith("drover/agent/") && e.tag().endsWith("/lost"), jobs::agentLost);
            if (cluster != null) {
                // returns another server stored complete the jobs this server's callers wait on
                bus.subscribe(e -> e.tag().startsWith("salt/job/") && e.tag().contains("/ret/"), jobs::returnStored);
                // agents connected to other servers are online here too
                bus.subscribeToPeers(e -> e.tag().startsWith("drover/agent/"), agents::peerReported);
                // another server rotated the shared session key
                bus.subscribeToPeers(e -> e.tag().equals(io.drover.server.cluster.SessionKeyStore.ROTATED), e -> sharedKey.refresh());
            }
            new JobRoutes(keys, jobs, agents::businesses).register(api);
            ExecutionPlans plans = new ExecutionPlans(database.jdbi(), jobs, agents::businesses, clock);
            new PlanRoutes(plans).register(api);

            SubscriptionStore subscriptionStore = new SubscriptionStore(database.jdbi(), clock);
            io.drover.server.secrets.SecretStore pluginSecrets = new io.drover.server.secrets.SecretStore(database.jdbi(), secrets,
                    events, biz -> subscriptionStore.list(biz, null), clock);
            new io.drover.server.secrets.SecretRoutes(pluginSecrets).register(api);
            this.registries = new Registries(database.jdbi(), packages, config.dataDir().resolve("registries"), clock);
            this.addons = new AddonService(database.jdbi(), packages, registries,
                    secrets, events, BuildVersion.release(),
                    subscriptionStore, clock);
            new PackageRoutes(packages).register(api);
            new RegistryRoutes(registries).register(api);
            new AddonRoutes(addons).register(api);

            DeploymentStore deployments = new DeploymentStore(database.jdbi(), clock);
            this.leases = new WorkLeaseStore(database.jdbi(), clock, joined == null);
            // Subscription tasks and diagnoses limit these system principals to the business they act for, per task.
            this.tasks = new TaskScheduler(new TaskRepository(database.jdbi(), events, clock), new io.drover.server.jobs.JobAgentCalls(jobs,
                    java.time.Duration.ofSeconds(config.jobTimeoutSeconds()), io.drover.server.auth.Principal.system("subscriptions")),
                    deployments, config.taskConcurrency(), leases, clock);
            this.subscriptions = new SubscriptionService(subscriptionStore,
                    new PlanBuilder(database.jdbi(), new InventoryRepository(), packages, deployments,
                            new AgentDirectory(agents), pluginSecrets), tasks, deployments,
                    new io.drover.server.subscriptions.ScopeObjects(database.jdbi(), new InventoryRepository()));
            new SubscriptionRoutes(subscriptions, inventory).register(api);
            this.triggers = new Triggers(subscriptionStore, subscriptions,
                    new io.drover.core.subscriptions.ReplanDebounce(java.time.Duration.ofSeconds(config.inventoryDebounceSeconds()),
                            java.time.Duration.ofSeconds(config.inventoryDebounceMaxSeconds())),
                    java.time.Duration.ofSeconds(config.inspectionIntervalSeconds()), clock);
            this.diagnosis = new io.drover.server.diagnosis.DiagnosisModule(new io.drover.server.diagnosis.DiagnosisModule.Needs(
                    database.jdbi(), events, new io.drover.server.jobs.JobAgentCalls(jobs,
                    java.time.Duration.ofSeconds(config.jobTimeoutSeconds()), io.drover.server.auth.Principal.system("diagnosis")),
                    subscriptions, deployments, inventory::findHosts,
                    (principal, biz, set, module, limit) -> inventory.hosts(principal, biz, set, module, null, 0, limit), agents::agentOfHost, agents::hostOf, agents::online, leases, clock),
                    new io.drover.server.diagnosis.DiagnosisModule.Settings(config.diagnosisConcurrency(),
                            new io.drover.server.diagnosis.DiagnosisRunner.Retry(java.time.Duration.ofSeconds(config.diagnosisRetrySeconds()), 4),
                            java.time.Duration.ofSeconds(config.diagnosisRepeatIntervalSeconds()), config.diagnosisMaxPaths(),
                            new io.drover.server.diagnosis.Diagnoses.Retention(config.diagnosisRetentionPerHost(),
                                    java.time.Duration.ofHours(config.diagnosisRetentionHours()))));
            new io.drover.server.diagnosis.DiagnosisRoutes(diagnosis, clock).register(api);
            this.retention = new io.drover.server.ops.Retention(audit, events, jobs, diagnosis::prune, database,
                    new io.drover.server.ops.Retention.Days(config.auditRetentionDays(), config.eventRetentionDays(), config.jobRetentionDays()));
            new io.drover.server.cluster.ClusterRoutes(leases, leadership, joined, sharedKey).register(api);

            this.certificates = config.tls() == null ? null : new io.drover.server.http.CertificateWatcher(config.tls());
            this.adminTokenFile = AdminTokenFile.ensure(tokens, config.dataDir());
            this.housekeeping = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                    .name("drover-housekeeping").factory());
            // Binds the agent ports: last, so that a port in use leaves nothing else running.
            SaltBridge bridge = new SaltBridge(keys, jobs, agents, files, database.jdbi(), events, plans::onLog,
                    config.requireMinionSignMessages(), config.allowPlainEnrollmentTokens());
            bound = new SaltMaster(MasterKeyFile.loadOrCreate(config.dataDir()), bridge, config.saltHost(),
                    config.saltPublishPort(), config.saltRequestPort(),
                    SaltMaster.PublishMode.valueOf(config.saltPublishMode().toUpperCase(java.util.Locale.ROOT)),
                    new SaltMaster.Limits(config.saltMaxMessageBytes(), config.saltMaxConnections(),
                            SaltMaster.Limits.defaults().receiveBudgetBytes(), SaltMaster.Limits.defaults().maxQueuedBytes(),
                            config.saltAddressLimits()),
                    publishes, session);
            this.master = bound;
            this.agentInstalls = new io.drover.server.agentinstall.AgentInstallService(database.jdbi(),
                    new io.drover.server.agentinstall.DirectoryPackageFiles(config.agentPackagesDir() == null
                            ? config.dataDir().resolve("agent-packages") : config.agentPackagesDir()),
                    enrollment, agents, inventory, advertisedMasters(config.saltHost(), master.requestPort()),
                    config.agentInstallAllowedTargets(), config.cluster() == null, clock);
            new io.drover.server.agentinstall.AgentInstallRoutes(agentInstalls).register(api);
            this.agentUpgrades = new io.drover.server.agentupgrade.AgentUpgradeService(database.jdbi(),
                    (principal, tgt, tgtType) -> jobs.resolve(principal, tgt, tgtType).minions(),
                    new io.drover.server.jobs.JobAgentCalls(jobs, java.time.Duration.ofSeconds(config.jobTimeoutSeconds()),
                            io.drover.server.auth.Principal.system("agent-upgrades")),
                    new io.drover.server.agentupgrade.RegistryAgents(agents), agentPackages, leases, clock);
            new io.drover.server.agentupgrade.AgentUpgradeRoutes(agentUpgrades).register(api);
            publishMetrics(metrics, master, bridge, cluster);
            new io.drover.server.keys.MasterKeyRoutes(new io.drover.model.keys.MasterKeyInfo(
                    io.drover.transport.crypto.RsaKeys.fingerprint(master.publicKeyPem()), master.publicKeyPem())).register(api);
            new OpsRoutes(database, metrics, BuildVersion.current(), master::ready, config.metricsToken()).register(api);
            new io.drover.server.console.ConsoleRoutes(io.drover.server.console.ConsoleAssets.fromClassPath()).register(api);
            int republished = events.publishPending();
            if (republished > 0) {
                log.info("published {} event(s) left unpublished by the previous run", republished);
            }
            int interrupted = tasks.takeOver(true, subscriptions::resumption);
            if (interrupted > 0) {
                log.warn("{} task(s) were interrupted by the last stop; they continue where they stopped", interrupted);
            }
        } catch (RuntimeException e) {
            if (bound != null) {
                bound.close();
            }
            if (joined != null) {
                joined.close();
            }
            database.close();
            throw e;
        }
    }

    /**
     * The agent transport address hosts installed over SSH are given when the request names none: salt-host when it is
     * one address others can reach (not every interface, not loopback); else none, and the request must name it.
     */
    private static java.util.List<String> advertisedMasters(String saltHost, int requestPort) {
        String host = saltHost.strip();
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("localhost")
                || host.startsWith("127.") || host.equals("::1")) {
            return java.util.List.of();
        }
        return java.util.List.of((host.contains(":") ? "[" + host + "]" : host) + ":" + requestPort);
    }

    private static void publishMetrics(PrometheusMeterRegistry metrics, SaltMaster master, SaltBridge bridge,
                                       io.drover.server.cluster.NatsCluster cluster) {
        if (cluster != null) {
            for (io.drover.core.cluster.ClusterSeal.Refusal reason : io.drover.core.cluster.ClusterSeal.Refusal.values()) {
                io.micrometer.core.instrument.FunctionCounter.builder("drover.cluster.messages.refused", cluster, c -> c.refused(reason))
                        .tag("reason", reason.name().toLowerCase(java.util.Locale.ROOT))
                        .description("Cluster messages dropped: not sealed under this cluster's key, too old or new, or seen before")
                        .register(metrics);
            }
        }
        for (var stats : java.util.List.of(master.requestStats(), master.publishStats())) {
            String port = stats == master.requestStats() ? "request" : "publish";
            io.micrometer.core.instrument.Gauge.builder("drover.salt.connections", stats, s -> s.openConnections())
                    .tag("port", port).description("Open connections on a transport port").register(metrics);
            io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.connections.refused", stats, s -> s.refusedConnections())
                    .tag("port", port).description("Connections closed at once: over salt-max-connections, or accept failed").register(metrics);
            io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.address.connections.refused", stats,
                            s -> s.refusedFromAddress())
                    .tag("port", port).description("Connections closed at accept: their source address already held "
                            + "salt-max-connections-per-address").register(metrics);
            io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.messages.dropped", stats, s -> s.droppedMessages())
                    .tag("port", port).description("Messages not sent because the peer's queue was full").register(metrics);
            for (String kind : io.drover.transport.zmtp.ZmtpStats.PROTOCOL_ERROR_KINDS) {
                io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.bad.frames", stats,
                                s -> s.protocolErrors().getOrDefault(kind, 0L))
                        .tag("port", port).tag("kind", kind)
                        .description("Connections closed for breaking the protocol or a limit, by kind").register(metrics);
            }
        }
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.address.sign.ins.refused", master, SaltMaster::refusedSignIns)
                .description("Sign-ins answered with a plain refusal, without RSA work or a stored key: their source address "
                        + "was over salt-sign-ins-per-address-per-minute").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.transport.restarts", master, SaltMaster::restarts)
                .description("Transport endpoints rebuilt after they stopped").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.publish.dropped", master, SaltMaster::droppedPublishes)
                .description("Publishes dropped because the publish queue was full").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::broadcastFrames)
                .tag("topic", "broadcast").description("Job frames sent on the publish port").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::targetedFrames)
                .tag("topic", "minion").description("Job frames sent on the publish port").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.agent.enrollment.plain.refused", bridge,
                        SaltBridge::plainEnrollmentsRefused)
                .description("Sign-ins whose enrollment token came in clear and was ignored (allow-plain-enrollment-tokens is off)")
                .register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.agent.events.refused", bridge, SaltBridge::refusedEvents)
                .description("Events from agents dropped: a tag outside the sender's own namespace, or a log of a plan not sent to it")
                .register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.publish.frames", master, SaltMaster::agentFrames)
                .tag("topic", "agent").description("Job frames sent on the publish port").register(metrics);
        for (io.drover.transport.master.RequestRefusal reason : io.drover.transport.master.RequestRefusal.values()) {
            io.micrometer.core.instrument.FunctionCounter.builder("drover.salt.requests.refused", master, m -> m.refusedRequests(reason))
                    .tag("reason", reason.label())
                    .description("Agent requests refused on identity grounds: another id claimed, the wrong key, a missing or bad signature")
                    .register(metrics);
        }
    }

    /** Opens the database, migrates it, binds the agent transport and serves the API. */
    public static DroverServer start(ServerConfig config) {
        DroverServer server = new DroverServer(config);
        try {
            server.api.start(config.host(), config.port(), server.certificates == null ? null : server.certificates.https());
        } catch (RuntimeException e) {
            server.housekeeping.shutdownNow();
            server.master.close();
            server.database.close();
            throw e;
        }
        server.triggers.start(server.bus, () -> server.leadership.leads(Leadership.Duty.SUBSCRIPTION_TRIGGERS));
        server.diagnosis.start(server.bus, () -> server.leadership.leads(Leadership.Duty.DIAGNOSIS_TRIGGERS));
        server.housekeeping.scheduleWithFixedDelay(server::refreshLeases, Leadership.LEASE.toMillis(),
                Leadership.LEASE.toMillis(), TimeUnit.MILLISECONDS);
        server.leadership.refresh();
        server.housekeeping.scheduleWithFixedDelay(server::prune, 1, 60, TimeUnit.MINUTES);
        server.housekeeping.scheduleWithFixedDelay(server::checkPresence, 1, 1, TimeUnit.SECONDS);
        server.housekeeping.scheduleWithFixedDelay(server::recordJobTimeouts, 2, 2, TimeUnit.SECONDS);
        server.housekeeping.scheduleWithFixedDelay(server::auditAuthFailures, 10, 10, TimeUnit.SECONDS);
        if (server.certificates != null) {
            server.housekeeping.scheduleWithFixedDelay(server.certificates, CERTIFICATE_CHECK_SECONDS,
                    CERTIFICATE_CHECK_SECONDS, TimeUnit.SECONDS);
        }
        log.info("drover server {} listening on {}, agents on {}:{}/{}, database {}", BuildVersion.current(), server.url(),
                config.saltHost(), server.master.publishPort(), server.master.requestPort(),
                server.database.dialect() == io.drover.server.store.Dialect.POSTGRESQL ? "PostgreSQL"
                        : "SQLite " + config.dbUrl().substring("jdbc:sqlite:".length()));
        log.info("the master key's fingerprint (drover agent --master-finger): {}",
                io.drover.transport.crypto.RsaKeys.fingerprint(server.master.publicKeyPem()));
        if (server.certificates != null) {
            log.info("HTTPS presents {} from {}", server.certificates.https().current().describe(), config.tls().cert());
        } else if (!config.loopbackHost()) {
            log.warn("the API and the console listen on {} in clear: tokens and everything the API answers can be read and"
                    + " changed by anyone on the network path; set tls-cert and tls-key (docs/operations.md, Exposing Drover)"
                    + " or serve it on 127.0.0.1 behind an HTTPS reverse proxy", config.host());
        }
        if (server.cluster != null) {
            io.drover.server.cluster.NatsCredentials credentials = server.cluster.credentials();
            log.info("cluster: joined NATS at {} with credentials: {}", io.drover.server.cluster.NatsCluster.withoutSecrets(config.cluster()),
                    credentials.kinds());
            if (credentials.none()) {
                log.warn("cluster: --cluster-insecure: NATS was given no credentials, so anyone who reaches it reads every job,"
                        + " event and return of the cluster and can flood it (cluster messages are still sealed, so nobody"
                        + " without the secret key can forge one); give the servers credentials (docs/operations.md)");
            }
        }
        return server;
    }

    private void checkPresence() {
        try {
            agents.checkPresence();
        } catch (RuntimeException e) {
            log.warn("agent presence check failed", e);
        }
    }

    /** One audit entry per address and minute with failed authentications. */
    private void auditAuthFailures() {
        try {
            authFailures.drainEnded().forEach((source, count) -> audit.record("anonymous", "AUTH", source, 401,
                    count + " failed authentication(s) from " + source + " in one minute"));
        } catch (RuntimeException e) {
            log.warn("writing failed authentications to the audit log failed", e);
        }
    }

    /**
     * Every lease period: asks for the duties this server lacks, renews the leases of the work it runs, and takes
     * over the work of servers whose leases ran out (a task continues from its record; a diagnosis resumes from its
     * checkpoint).
     */
    private void refreshLeases() {
        try {
            leadership.refresh();
            leases.renew();
            if (sharedKey != null) {
                sharedKey.refresh(); // in case the event of another server's rotation was missed
            }
            int tasksTaken = tasks.takeOver(false, subscriptions::resumption);
            if (tasksTaken > 0) {
                log.warn("{} task(s) of a server that stopped were taken over; they continue where they stopped", tasksTaken);
            }
            diagnosis.takeOverAbandoned();
            agentUpgrades.failAbandoned(false);
        } catch (RuntimeException e) {
            log.warn("refreshing leases failed", e);
        }
    }

    private void recordJobTimeouts() {
        try {
            jobs.recordTimeouts();
        } catch (RuntimeException e) {
            log.warn("recording timed-out jobs failed", e);
        }
    }

    private void prune() {
        if (!leadership.leads(Leadership.Duty.PRUNING)) {
            return;
        }
        jobs.forgetStaleJobs();
        retention.run();
    }

    public String url() {
        String host = config.host().equals("0.0.0.0") ? "127.0.0.1" : config.host();
        return (certificates == null ? "http://" : "https://") + host + ":" + port();
    }

    public int port() {
        return api.port();
    }

    public ServerConfig config() {
        return config;
    }

    public Database database() {
        return database;
    }

    public EventBus bus() {
        return bus;
    }

    public TokenStore tokens() {
        return tokens;
    }

    public InventoryService inventory() {
        return inventory;
    }

    public InventoryImport inventoryImport() {
        return inventoryImport;
    }

    public SaltMaster master() {
        return master;
    }

    public JobService jobs() {
        return jobs;
    }

    public AgentRegistry agents() {
        return agents;
    }

    public EnrollmentTokenStore enrollment() {
        return enrollment;
    }

    public FileServer files() {
        return files;
    }

    public PackageStore packages() {
        return packages;
    }

    public io.drover.server.agentpackages.AgentPackageService agentPackages() {
        return agentPackages;
    }

    public SubscriptionService subscriptions() {
        return subscriptions;
    }

    public io.drover.server.diagnosis.DiagnosisModule diagnosis() {
        return diagnosis;
    }

    public Registries registries() {
        return registries;
    }

    public AddonService addons() {
        return addons;
    }

    public KeyStore keys() {
        return keys;
    }

    public HttpApi api() {
        return api;
    }

    /** The admin token file written by this start, or null when tokens existed already. */
    public Path adminTokenFile() {
        return adminTokenFile;
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
        api.stop();
        if (master != null) {
            master.close();
        }
        triggers.close();
        agentInstalls.close();
        agentUpgrades.close();
        try {
            diagnosis.close();
        } catch (Exception e) {
            log.warn("stopping diagnosis failed", e);
        }
        tasks.close();
        jobs.close();
        if (cluster != null) {
            cluster.close();
        }
        leadership.close();
        database.close();
        log.info("drover server stopped");
    }

    /** A new data directory is the server user's alone (0700): the database in it holds the inventory and returns. */
    private static void createDataDir(Path dir) {
        try {
            if (!Files.exists(dir)) {
                Files.createDirectories(dir);
                if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dir, e);
        }
    }
}

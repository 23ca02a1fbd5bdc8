package io.drover.server;

import io.drover.core.match.Glob;
import io.drover.server.addons.AddonService;
import io.drover.server.addons.AddonsModule;
import io.drover.server.agentinstall.AgentInstallModule;
import io.drover.server.agentlink.AgentLinkModule;
import io.drover.server.agentpackages.AgentPackageService;
import io.drover.server.agentpackages.AgentPackagesModule;
import io.drover.server.agents.AgentRegistry;
import io.drover.server.agents.AgentsModule;
import io.drover.server.inventory.InventoryImport;
import io.drover.server.agents.EnrollmentTokenStore;
import io.drover.server.agentupgrade.AgentUpgradeModule;
import io.drover.server.auth.AuthModule;
import io.drover.server.cluster.ClusterModule;
import io.drover.server.cluster.Leadership;
import io.drover.server.config.ServerConfig;
import io.drover.server.diagnosis.DiagnosisModule;
import io.drover.server.diagnosis.DiagnosisRunner;
import io.drover.server.diagnosis.Diagnoses;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventStore;
import io.drover.server.files.FileServer;
import io.drover.server.http.CertificateWatcher;
import io.drover.server.http.ClientAddress;
import io.drover.server.http.HttpApi;
import io.drover.server.inventory.InventoryStore;
import io.drover.server.inventory.InventoryService;
import io.drover.server.jobs.JobService;
import io.drover.server.jobs.JobsModule;
import io.drover.server.keys.KeyStore;
import io.drover.server.keys.MasterKeyFile;
import io.drover.server.ops.Retention;
import io.drover.server.packages.PackagesModule;
import io.drover.server.plans.ExecutionPlans;
import io.drover.server.registries.Registries;
import io.drover.server.store.DataDirectory;
import io.drover.server.store.Database;
import io.drover.server.store.SecretBox;
import io.drover.server.subscriptions.SubscriptionService;
import io.drover.server.subscriptions.SubscriptionsModule;
import io.drover.transport.master.PublishQueue;
import io.drover.transport.master.SaltMaster;
import io.drover.transport.master.SessionKey;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's assembly: builds each feature's module in order (each from the {@code Needs} it takes from the ones
 * before), binds the agent transport last, serves the API, and stops them in reverse.
 */
public final class DroverServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DroverServer.class);

    private final ServerConfig config;
    private final Database database;
    private final EventBus bus;
    private final InventoryService inventory;
    private final InventoryImport inventoryImport;
    private final HttpApi api;
    private final Leadership leadership;
    private final AgentsModule agents;
    private final AgentPackagesModule agentPackages;
    private final FileServer files;
    private final KeyStore keys;
    private final ClusterModule cluster;
    private final JobsModule jobs;
    private final SubscriptionsModule subscriptions;
    private final AddonsModule addons;
    private final DiagnosisModule diagnosis;
    private final AgentLinkModule link;
    private final AgentInstallModule agentInstalls;
    private final AgentUpgradeModule agentUpgrades;
    private final Housekeeping housekeeping;
    /** Replaces the HTTPS certificate when its files change; null when the API serves plain HTTP. */
    private final CertificateWatcher certificates;
    private final Path adminTokenFile;

    private DroverServer(ServerConfig config) {
        this.config = config;
        DataDirectory.create(config.dataDir());
        this.database = Database.open(config.dbUrl(), config.dbUser(), config.dbPassword(), config.dbPoolSize(), config.sqliteSync());
        ClusterModule joined = null;
        AgentLinkModule bound = null;
        try {
            PrometheusMeterRegistry metrics = ServerMetrics.withJvm();
            Clock clock = Clock.systemUTC();
            var jdbi = database.jdbi();
            this.bus = new EventBus();
            EventStore events = new EventStore(jdbi, bus, clock);
            AuthModule auth = new AuthModule(new AuthModule.Needs(jdbi, config.authFailuresPerMinute(), clock));
            this.inventory = new InventoryService(jdbi, new InventoryStore(), events);
            this.inventoryImport = new InventoryImport(jdbi, new InventoryStore(), events);
            this.api = new HttpApi(auth.tokens(), auth.audit(), auth.failures(), metrics, ClientAddress.trusting(config.trustedProxies()));
            this.leadership = config.cluster() == null ? Leadership.alone()
                    : Leadership.shared(config.dbUrl(), config.dbUser(), config.dbPassword());
            // the server holding the pruning duty also marks lost the agents of servers that stopped
            Leadership duties = leadership;
            this.agents = new AgentsModule(new AgentsModule.Needs(jdbi, events, inventory, config.agentBiz(),
                    () -> duties.leads(Leadership.Duty.PRUNING), clock));
            this.agentPackages = new AgentPackagesModule(new AgentPackagesModule.Needs(jdbi, config.dataDir(),
                    config.agentPackagesDir(), config.agentPackageMaxBytes(), clock));
            PackagesModule packages = new PackagesModule(new PackagesModule.Needs(jdbi, config.dataDir(), clock));
            // A package (or agent package) uploaded through another server of a cluster is restored from the database.
            this.files = new FileServer(config.dataDir().resolve("files"),
                    path -> packages.store().restoreFile(path) || agentPackages.service().restoreFile(path));
            SecretBox secrets = SecretBox.loadOrCreate(config.dataDir(), System.getenv(SecretBox.KEY_ENV));
            SessionKey session = new SessionKey();
            PublishQueue publishes = new PublishQueue();
            joined = new ClusterModule(new ClusterModule.Needs(config.cluster(), config::natsCredentials, jdbi, secrets,
                    session, publishes, events, bus, clock));
            this.cluster = joined;
            this.keys = new KeyStore(jdbi, events, config.autoAccept().stream().map(Glob::compile).toList(),
                    agents.enrollment(), agents.registry(), cluster::rotateSession, config.maxPendingKeys(), clock);
            this.jobs = new JobsModule(new JobsModule.Needs(jdbi, events, bus, keys, agents.registry()::grains,
                    agents.registry()::businesses, cluster.publisher(), secrets, cluster.joined(), clock),
                    new JobsModule.Settings(config.nodegroups(), config.returnMaxBytes(), seconds(config.jobTimeoutSeconds())));
            agents.followInventory(bus);
            if (cluster.joined()) {
                agents.followPeers(bus);
                cluster.followPeers(bus);
            }
            ExecutionPlans plans = new ExecutionPlans(jdbi, jobs.service(), agents.registry()::businesses, clock);
            this.subscriptions = new SubscriptionsModule(new SubscriptionsModule.Needs(jdbi, events, secrets, packages.store(),
                    agents.registry(), jobs.callsAs("subscriptions"), cluster.leases(), clock),
                    new SubscriptionsModule.Settings(config.taskConcurrency(), seconds(config.inventoryDebounceSeconds()),
                            seconds(config.inventoryDebounceMaxSeconds()), seconds(config.inspectionIntervalSeconds())));
            this.addons = new AddonsModule(new AddonsModule.Needs(jdbi, packages.store(), config.dataDir(), secrets, events,
                    BuildVersion.release(), subscriptions.store(), clock));
            AgentRegistry registry = agents.registry();
            this.diagnosis = new DiagnosisModule(new DiagnosisModule.Needs(jdbi, events, jobs.callsAs("diagnosis"),
                    subscriptions.service(), subscriptions.deployments(), inventory::findHosts,
                    (principal, biz, set, module, limit) -> inventory.hosts(principal, biz, set, module, null, 0, limit),
                    registry::agentOfHost, registry::hostOf, registry::online, cluster.leases(), clock),
                    new DiagnosisModule.Settings(config.diagnosisConcurrency(),
                            new DiagnosisRunner.Retry(seconds(config.diagnosisRetrySeconds()), 4),
                            seconds(config.diagnosisRepeatIntervalSeconds()), config.diagnosisMaxPaths(),
                            new Diagnoses.Retention(config.diagnosisRetentionPerHost(),
                                    Duration.ofHours(config.diagnosisRetentionHours()))));
            Retention retention = new Retention(auth.audit(), events, jobs.service(), diagnosis::prune, database,
                    new Retention.Days(config.auditRetentionDays(), config.eventRetentionDays(), config.jobRetentionDays()));
            this.certificates = config.tls() == null ? null : new CertificateWatcher(config.tls());
            this.adminTokenFile = auth.ensureAdminToken(config.dataDir());
            // Binds the agent ports: last, so that a port in use leaves nothing else running.
            bound = new AgentLinkModule(new AgentLinkModule.Needs(keys, jobs.service(), registry, files, plans::onLog, jdbi,
                    events, MasterKeyFile.loadOrCreate(config.dataDir()), publishes, session), transportSettings(config));
            this.link = bound;
            this.agentInstalls = new AgentInstallModule(new AgentInstallModule.Needs(jdbi, config.agentPackagesDir() == null
                    ? config.dataDir().resolve("agent-packages") : config.agentPackagesDir(), agents.enrollment(), registry,
                    inventory, config.saltHost(), link.master().requestPort(),
                    link.masterKey().fingerprint(), config.agentInstallAllowedTargets(),
                    !cluster.joined(), clock));
            this.agentUpgrades = new AgentUpgradeModule(new AgentUpgradeModule.Needs(jdbi,
                    (principal, tgt, tgtType) -> jobs.service().resolve(principal, tgt, tgtType).minions(),
                    jobs.callsAs("agent-upgrades"), registry, agentPackages.service(), cluster.leases(), clock));
            cluster.bindMetrics(metrics);
            link.bindMetrics(metrics);
            ServerRoutes.register(api, new ServerRoutes.Needs(auth, inventory, inventoryImport, bus, events, agents, agentPackages.service(),
                    keys, jobs.service(), plans, subscriptions, packages.store(), addons, diagnosis, leadership, cluster,
                    agentInstalls.service(), agentUpgrades.service(), link, database, metrics, config.metricsToken(), clock));
            this.housekeeping = new Housekeeping(new Housekeeping.Needs(leadership, cluster, subscriptions, diagnosis,
                    agentUpgrades.service(), jobs, retention, agents, auth, certificates));
            int republished = events.publishPending();
            if (republished > 0) {
                log.info("published {} event(s) left unpublished by the previous run", republished);
            }
            subscriptions.resumeInterrupted();
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

    private static AgentLinkModule.Settings transportSettings(ServerConfig config) {
        return new AgentLinkModule.Settings(config.saltHost(), config.saltPublishPort(), config.saltRequestPort(),
                SaltMaster.PublishMode.valueOf(config.saltPublishMode().toUpperCase(Locale.ROOT)),
                new SaltMaster.Limits(config.saltMaxMessageBytes(), config.saltMaxConnections(),
                        SaltMaster.Limits.defaults().receiveBudgetBytes(), SaltMaster.Limits.defaults().maxQueuedBytes(),
                        config.saltAddressLimits()),
                config.requireMinionSignMessages(), config.allowPlainEnrollmentTokens());
    }

    private static Duration seconds(long seconds) {
        return Duration.ofSeconds(seconds);
    }

    /** Opens the database, migrates it, binds the agent transport and serves the API. */
    public static DroverServer start(ServerConfig config) {
        DroverServer server = new DroverServer(config);
        try {
            server.api.start(config.host(), config.port(), server.certificates == null ? null : server.certificates.https(),
                    config.httpMaxConnections());
        } catch (RuntimeException e) {
            server.housekeeping.close();
            server.link.close();
            server.database.close();
            throw e;
        }
        server.subscriptions.start(server.bus, () -> server.leadership.leads(Leadership.Duty.SUBSCRIPTION_TRIGGERS));
        server.diagnosis.start(server.bus, () -> server.leadership.leads(Leadership.Duty.DIAGNOSIS_TRIGGERS));
        server.housekeeping.start();
        StartupLog.started(server, config, server.certificates != null,
                server.certificates == null ? null : server.certificates.https().current().describe());
        server.cluster.logJoined(config.cluster());
        return server;
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

    public InventoryService inventory() {
        return inventory;
    }

    public InventoryImport inventoryImport() {
        return inventoryImport;
    }

    public SaltMaster master() {
        return link.master();
    }

    public JobService jobs() {
        return jobs.service();
    }

    public AgentRegistry agents() {
        return agents.registry();
    }

    public EnrollmentTokenStore enrollment() {
        return agents.enrollment();
    }

    public FileServer files() {
        return files;
    }

    public AgentPackageService agentPackages() {
        return agentPackages.service();
    }

    public SubscriptionService subscriptions() {
        return subscriptions.service();
    }

    public DiagnosisModule diagnosis() {
        return diagnosis;
    }

    public Registries registries() {
        return addons.registries();
    }

    public AddonService addons() {
        return addons.service();
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

    /** Stops the parts in the reverse of their start: the periodic duties and the API first, the database last. */
    @Override
    public void close() {
        housekeeping.close();
        api.stop();
        link.close();
        agentInstalls.close();
        agentUpgrades.close();
        try {
            diagnosis.close();
        } catch (Exception e) {
            log.warn("stopping diagnosis failed", e);
        }
        subscriptions.close();
        jobs.close();
        cluster.close();
        leadership.close();
        database.close();
        log.info("drover server stopped");
    }
}

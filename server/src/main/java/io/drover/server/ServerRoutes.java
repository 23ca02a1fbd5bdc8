package io.drover.server;

import io.drover.server.addons.AddonRoutes;
import io.drover.server.addons.AddonsModule;
import io.drover.server.agentinstall.AgentInstallRoutes;
import io.drover.server.agentinstall.AgentInstallService;
import io.drover.server.agentlink.AgentLinkModule;
import io.drover.server.agentpackages.AgentPackageRoutes;
import io.drover.server.agentpackages.AgentPackageService;
import io.drover.server.agents.AgentRoutes;
import io.drover.server.agents.AgentsModule;
import io.drover.server.agentupgrade.AgentUpgradeRoutes;
import io.drover.server.agentupgrade.AgentUpgradeService;
import io.drover.server.auth.AuthModule;
import io.drover.server.auth.AuthRoutes;
import io.drover.server.cluster.ClusterModule;
import io.drover.server.cluster.ClusterRoutes;
import io.drover.server.cluster.Leadership;
import io.drover.server.console.ConsoleAssets;
import io.drover.server.console.ConsoleRoutes;
import io.drover.server.diagnosis.DiagnosisModule;
import io.drover.server.diagnosis.DiagnosisRoutes;
import io.drover.server.events.EventBus;
import io.drover.server.events.EventRoutes;
import io.drover.server.events.EventStore;
import io.drover.server.http.HttpApi;
import io.drover.server.inventory.InventoryImport;
import io.drover.server.inventory.InventoryRoutes;
import io.drover.server.inventory.InventoryService;
import io.drover.server.jobs.JobRoutes;
import io.drover.server.jobs.JobService;
import io.drover.server.keys.KeyStore;
import io.drover.server.keys.MasterKeyRoutes;
import io.drover.server.ops.OpsRoutes;
import io.drover.server.packages.PackageRoutes;
import io.drover.server.packages.PackageStore;
import io.drover.server.plans.ExecutionPlans;
import io.drover.server.plans.PlanRoutes;
import io.drover.server.registries.RegistryRoutes;
import io.drover.server.secrets.SecretRoutes;
import io.drover.server.store.Database;
import io.drover.server.subscriptions.SubscriptionRoutes;
import io.drover.server.subscriptions.SubscriptionsModule;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;

/**
 * The HTTP layer's assembly: every feature's routes, registered in one fixed order (a path a later route would also
 * match is served by the first; the OpenAPI document lists them in this order).
 */
final class ServerRoutes {
    private ServerRoutes() {
    }

    /** The parts the routes serve. */
    record Needs(AuthModule auth, InventoryService inventory, InventoryImport inventoryImport, EventBus bus, EventStore events, AgentsModule agents,
                 AgentPackageService agentPackages, KeyStore keys, JobService jobs, ExecutionPlans plans,
                 SubscriptionsModule subscriptions, PackageStore packages, AddonsModule addons, DiagnosisModule diagnosis,
                 Leadership leadership, ClusterModule cluster, AgentInstallService agentInstalls,
                 AgentUpgradeService agentUpgrades, AgentLinkModule link, Database database,
                 PrometheusMeterRegistry metrics, String metricsToken, Clock clock) {
    }

    static void register(HttpApi api, Needs n) {
        new AuthRoutes(n.auth().tokens(), n.auth().audit()).register(api);
        new InventoryRoutes(n.inventory(), n.inventoryImport()).register(api);
        new EventRoutes(n.bus(), n.events()).register(api);
        new AgentRoutes(n.agents().registry(), n.agents().enrollment()).register(api);
        new AgentPackageRoutes(n.agentPackages(), n.agents().enrollment()::check).register(api);
        new JobRoutes(n.keys(), n.jobs(), n.agents().registry()::businesses).register(api);
        new PlanRoutes(n.plans()).register(api);
        new SecretRoutes(n.subscriptions().pluginSecrets()).register(api);
        new PackageRoutes(n.packages()).register(api);
        new RegistryRoutes(n.addons().registries()).register(api);
        new AddonRoutes(n.addons().service()).register(api);
        new SubscriptionRoutes(n.subscriptions().service(), n.inventory()).register(api);
        new DiagnosisRoutes(n.diagnosis(), n.clock()).register(api);
        new ClusterRoutes(n.cluster().leases(), n.leadership(), n.cluster().nats(), n.cluster().sharedKey()).register(api);
        new AgentInstallRoutes(n.agentInstalls()).register(api);
        new AgentUpgradeRoutes(n.agentUpgrades()).register(api);
        new MasterKeyRoutes(n.link().masterKey()).register(api);
        new OpsRoutes(n.database(), n.metrics(), BuildVersion.current(), n.link().master()::ready, n.metricsToken()).register(api);
        new ConsoleRoutes(ConsoleAssets.fromClassPath()).register(api);
    }
}

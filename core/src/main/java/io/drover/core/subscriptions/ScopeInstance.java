package io.drover.core.subscriptions;

import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import java.util.List;

/**
 * One object of a subscription's scope: a host, or a service instance with its host. {@code targetHosts} are where
 * its plugins run: its own host, or the subscription's fixed target hosts.
 */
public record ScopeInstance(String instanceId, String groupId, Host host, ServiceInstance service, List<Long> targetHosts) {

    public static String hostInstanceId(long hostId) {
        return "host|instance|host|" + hostId;
    }

    public static String serviceInstanceId(long serviceId) {
        return "service|instance|service|" + serviceId;
    }

    public static String hostGroupId(long subscriptionId, long hostId) {
        return "sub_" + subscriptionId + "_host_" + hostId;
    }

    public static String serviceGroupId(long subscriptionId, long serviceId) {
        return "sub_" + subscriptionId + "_service_" + serviceId;
    }
}

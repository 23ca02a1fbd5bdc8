package io.drover.model.inventory;

import java.util.List;

/** A process of a service instance, with the ports it listens on. */
public record ServiceProcess(String name, String bindIp, List<Integer> ports, String protocol) {
    public ServiceProcess {
        ports = ports == null ? List.of() : List.copyOf(ports);
    }
}

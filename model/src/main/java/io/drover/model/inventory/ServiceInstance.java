package io.drover.model.inventory;

import java.util.List;
import java.util.Map;

/** A service instance: one service (for example a MySQL server) on one host, in one module. */
public record ServiceInstance(
        Long id,
        String name,
        Long bkBizId,
        Long bkModuleId,
        Long bkHostId,
        Map<String, String> labels,
        List<ServiceProcess> processes) {

    public ServiceInstance {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        processes = processes == null ? List.of() : List.copyOf(processes);
    }

    public ServiceInstance withBizId(Long bizId) {
        return new ServiceInstance(id, name, bizId, bkModuleId, bkHostId, labels, processes);
    }
}

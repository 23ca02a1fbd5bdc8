package io.drover.model.inventory;

import java.util.List;
import java.util.Map;

/** A host: fixed CMDB fields plus free-form attributes. It belongs to one business and one or more modules. */
public record Host(
        Long bkHostId,
        Long bkBizId,
        String bkHostInnerip,
        Long bkCloudId,
        String bkHostName,
        String osType,
        String cpuArch,
        List<Long> bkModuleIds,
        Map<String, Object> attributes) {

    public Host {
        bkModuleIds = bkModuleIds == null ? List.of() : List.copyOf(bkModuleIds);
        attributes = attributes == null ? Map.of()
                : attributes instanceof LazyAttributes ? attributes : Map.copyOf(attributes);
    }
}

package io.drover.model.packages;

import java.util.Map;

/**
 * Enable or upgrade an addon: {@code addon} is {@code [registry/]name[@version]}; {@code params} are checked against
 * the package's schema. With {@code dry_run} nothing changes and the response shows the plan.
 */
public record AddonRequest(String addon, Map<String, Object> params, Boolean dryRun) {
    public boolean dry() {
        return Boolean.TRUE.equals(dryRun);
    }
}

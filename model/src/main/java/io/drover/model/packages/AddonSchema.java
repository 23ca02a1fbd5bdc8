package io.drover.model.packages;

import java.util.Map;

/** The parameters an addon version takes (a JSON Schema object, empty when it takes none), for forms that enable it. */
public record AddonSchema(String name, String version, String registry, Map<String, Object> schema) {
}

package io.drover.model.diagnosis;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * A diagnosis document as KubeDiag writes it ({@code Operation}, {@code OperationSet}, {@code Trigger} or
 * {@code Diagnosis}), so that a KubeDiag user's YAML is sent unchanged; {@code spec} is checked by its kind.
 */
public record KubeDocument(@JsonProperty("apiVersion") String apiVersion, String kind, Map<String, Object> metadata,
                           Map<String, Object> spec) {
}

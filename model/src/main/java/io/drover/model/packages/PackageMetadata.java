package io.drover.model.packages;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.drover.model.Json;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A package's {@code metadata.yaml}: NodeMan's project.yaml merged with KubeVela's addon metadata (docs/operations.md, "Plugin packages, registries and addons").
 * Unknown fields are errors, so a misspelt {@code config_templates} is not silently ignored.
 */
public record PackageMetadata(
        String name,
        String version,
        String description,
        String category,
        List<String> os,
        List<String> cpuArch,
        List<Dependency> dependencies,
        Map<String, String> system,
        Map<String, String> control,
        String processName,
        String portRange,
        Boolean needDelegate,
        List<ConfigTemplate> configTemplates,
        Map<String, Object> parameters,
        List<String> tags,
        String url,
        String icon) {

    public record Dependency(String name, String version) {
    }

    public record ConfigTemplate(String name, String path, String source, String format, Boolean isMain) {
    }

    private static final ObjectReader READER = Json.yaml().readerFor(PackageMetadata.class)
            .with(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY);

    public PackageMetadata {
        os = os == null ? List.of() : List.copyOf(os);
        cpuArch = cpuArch == null ? List.of() : List.copyOf(cpuArch);
        dependencies = dependencies == null ? List.of() : List.copyOf(dependencies);
        system = system == null ? Map.of() : Map.copyOf(system);
        control = control == null ? Map.of() : Map.copyOf(control);
        configTemplates = configTemplates == null ? List.of() : List.copyOf(configTemplates);
        parameters = parameters == null ? Map.of() : parameters;
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    public boolean delegated() {
        return needDelegate == null || needDelegate;
    }

    /** Reads metadata.yaml; a syntax error, unknown field or wrong type is an IllegalArgumentException naming it. */
    public static PackageMetadata fromYaml(byte[] yaml) {
        try {
            PackageMetadata metadata = READER.readValue(yaml);
            if (metadata == null) {
                throw new IllegalArgumentException("metadata.yaml is empty");
            }
            return metadata;
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException("metadata.yaml: unknown field '" + e.getPropertyName() + "'"
                    + line(e) + "; known fields are " + e.getKnownPropertyIds());
        } catch (com.fasterxml.jackson.databind.exc.MismatchedInputException e) {
            String field = e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(java.util.stream.Collectors.joining(".")).replace(".[", "[");
            throw new IllegalArgumentException("metadata.yaml: " + (field.isEmpty() ? "the document" : "field '" + field + "'")
                    + " has the wrong type" + line(e));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("metadata.yaml: " + e.getOriginalMessage().lines().findFirst().orElse("")
                    + line(e));
        } catch (IOException e) {
            throw new IllegalArgumentException("metadata.yaml cannot be read: " + e.getMessage());
        }
    }

    public byte[] toYaml() {
        try {
            return Json.yaml().writeValueAsBytes(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String line(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
    }
}

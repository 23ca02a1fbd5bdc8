package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParamsSchemaTest {
    static final Map<String, Object> SCHEMA = Map.of("type", "object", "additionalProperties", false,
            "required", List.of("token"),
            "properties", Map.of(
                    "port", Map.of("type", "integer", "minimum", 1, "maximum", 65535, "default", 9100),
                    "mode", Map.of("type", "string", "enum", List.of("pull", "push")),
                    "token", Map.of("type", "string", "writeOnly", true, "minLength", 8),
                    "targets", Map.of("type", "array", "items", Map.of("type", "string"))));

    @Test
    void defaultsAreFilledAndValidValuesPass() {
        Map<String, Object> applied = ParamsSchema.of(SCHEMA).apply(Map.of("token", "s3cr3t-token", "targets", List.of("a")));
        assertThat(applied).containsEntry("port", 9100).containsEntry("token", "s3cr3t-token");
    }

    @Test
    void everyBadValueIsNamed() {
        assertThatThrownBy(() -> ParamsSchema.of(SCHEMA).apply(Map.of("port", "x", "mode", "poll", "targets", List.of(1),
                "extra", true))).isInstanceOfSatisfying(PackageException.class, e -> assertThat(e.problems())
                .containsExactlyInAnyOrder("params.token: is required", "params.port: must be an integer, got a string (x)",
                        "params.mode: must be one of [pull, push], got a string (poll)",
                        "params.targets[0]: must be a string, got a number (1)",
                        "params.extra: is not a known parameter; known: " + ((Map<?, ?>) SCHEMA.get("properties")).keySet()));
        assertThatThrownBy(() -> ParamsSchema.of(SCHEMA).apply(Map.of("token", "short", "port", 70000)))
                .isInstanceOfSatisfying(PackageException.class, e -> assertThat(e.problems()).containsExactlyInAnyOrder(
                        "params.token: must be at least 8 characters long", "params.port: must be at most 65535, got 70000"));
    }

    @Test
    void secretsAreMasked() {
        ParamsSchema schema = ParamsSchema.of(SCHEMA);
        assertThat(schema.secrets()).containsExactly("token");
        assertThat(schema.masked(Map.of("token", "s3cr3t-token", "port", 1))).containsEntry("token", "******")
                .containsEntry("port", 1);
    }

    @Test
    void aParameterMarkedSecretIsOneAndTheMarkIsABoolean() {
        ParamsSchema schema = ParamsSchema.of(Map.of("type", "object", "properties", Map.of(
                "db_password", Map.of("type", "string", "secret", true), "user", Map.of("type", "string", "secret", false))));
        assertThat(schema.secrets()).containsExactly("db_password");
        assertThatThrownBy(() -> ParamsSchema.of(Map.of("properties", Map.of("p", Map.of("secret", "yes")))))
                .isInstanceOf(io.drover.core.packages.PackageException.class).hasMessageContaining("parameters.properties.p.secret: must be true or false");
    }

    @Test
    void badSchemasAreRefused() {
        assertThatThrownBy(() -> ParamsSchema.of(Map.of("type", "object", "properties", Map.of("a", Map.of("type", "text")),
                "required", List.of("b")))).isInstanceOfSatisfying(PackageException.class, e -> assertThat(e.problems())
                .contains("parameters.properties.a.type: 'text' is not one of [object, array, string, integer, number, boolean]"
                                .replace("[object, array, string, integer, number, boolean]", e.problems().getFirst()
                                        .substring(e.problems().getFirst().indexOf('['))),
                        "parameters.required: 'b' is not among the properties"));
        assertThatThrownBy(() -> ParamsSchema.of(Map.of("type", "object", "propertys", Map.of())))
                .hasMessage("parameters: unsupported keyword 'propertys'");
    }

    @Test
    void portRangesParse() {
        assertThat(PortRange.parse("9102, 10000-10002").ports()).containsExactly(9102, 10000, 10001, 10002);
        assertThat(PortRange.parse("9102,10000-10005").contains(10003)).isTrue();
        assertThatThrownBy(() -> PortRange.parse("70000")).hasMessage("port_range '70000': '70000' is not a port (1-65535)");
        assertThatThrownBy(() -> PortRange.parse("9100,")).hasMessageContaining("'' is not a port");
    }
}

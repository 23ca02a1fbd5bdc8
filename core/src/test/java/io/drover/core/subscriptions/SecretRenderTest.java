package io.drover.core.subscriptions;

import static io.drover.core.subscriptions.ScopeAndRenderTest.BEAT;
import static io.drover.core.subscriptions.ScopeAndRenderTest.INVENTORY;
import static io.drover.core.subscriptions.ScopeAndRenderTest.spec;
import static io.drover.core.subscriptions.ScopeAndRenderTest.topo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.render.TemplateRenderer;
import io.drover.core.subscriptions.InstanceRenderer.RenderedStep;
import io.drover.core.subscriptions.InstanceRenderer.StepInput;
import io.drover.core.subscriptions.SecretReferences.SecretValue;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.packages.PackageMetadata;
import io.drover.model.packages.PackageMetadata.ConfigTemplate;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretRenderTest {
    static final String SECRET = "p{{ 7*7 }}w{% raw %}";
    static final PackageMetadata CLIENT = new PackageMetadata("client", "1.0.0", null, "external", List.of("linux"),
            List.of("x86_64"), null, null, null, null, null, null,
            List.of(new ConfigTemplate("client.conf", "etc", "client.j2", "ini", true)), null, null, null, null);

    final InstanceRenderer renderer = new InstanceRenderer(new TemplateRenderer());
    final ScopeInstance instance = ScopeResolver.resolve(2, spec("HOST", "TOPO", List.of(topo("module", 22)), null, Map.of()),
            INVENTORY).instances().getFirst();

    /** Step "beat" references secret db (stamp s1) as "password"; step "client" uses it through step_data, and not at all. */
    List<StepInput> steps(String value, String stamp) {
        SecretValue db = new SecretValue("db", value, stamp);
        return List.of(
                new StepInput("beat", BEAT, Map.of("t/script.j2", "user: {{ user }}\npassword: {{ password }}\n"), List.of(),
                        Map.of("user", "{{ cmdb_instance.host.bk_host_name }}", "password", Map.of("secret", "db")),
                        Map.of("password", db)),
                new StepInput("client", CLIENT, Map.of("client.j2", "from beat: {{ step_data.beat.context.password | upper }}\n"),
                        List.of(), Map.of()));
    }

    @Test
    void aSecretIsPutInAsDataNeverRenderedAndEveryStepInItsReachIsStamped() {
        Map<String, RenderedStep> sent = renderer.render(instance, null, steps(SECRET, "s1"), Map.of());
        assertThat(sent.get("beat").error()).isNull();
        assertThat(sent.get("beat").files().values()).containsExactly("user: host-3\npassword: " + SECRET);
        assertThat(sent.get("client").files().values()).containsExactly("from beat: " + SECRET.toUpperCase());
        assertThat(sent.get("beat").secretStamp()).isEqualTo("beat.password=db@s1");
        assertThat(sent.get("client").secretStamp()).isEqualTo("beat.password=db@s1");

        Map<String, RenderedStep> planned = renderer.render(instance, null, steps(SecretReferences.REDACTED, "s1"), Map.of());
        assertThat(planned.get("beat").files().values()).containsExactly("user: host-3\npassword: «redacted»");
        StepFiles files = new StepFiles(sent.get("client").files(), planned.get("client"));
        String path = files.paths().iterator().next();
        assertThat(files.shownContent(path)).isEqualTo(SecretReferences.REDACTED);
        assertThat(files.sent().get(path)).contains(SECRET.toUpperCase());
        assertThat(files.md5s().get(path)).isEqualTo(io.drover.core.Hashing.md5("from beat: «REDACTED»\u0000secrets beat.password=db@s1"));
    }

    @Test
    void theDigestChangesWithTheSecretsStampNotWithItsValue() {
        RenderedStep first = renderer.render(instance, null, steps(SecretReferences.REDACTED, "s1"), Map.of()).get("beat");
        RenderedStep rotated = renderer.render(instance, null, steps(SecretReferences.REDACTED, "s2"), Map.of()).get("beat");
        assertThat(first.files()).isEqualTo(rotated.files());
        assertThat(first.digestContents()).isNotEqualTo(rotated.digestContents());
        StepFiles a = new StepFiles(renderer.render(instance, null, steps("one", "s1"), Map.of()).get("beat").files(), first);
        StepFiles b = new StepFiles(renderer.render(instance, null, steps("two", "s1"), Map.of()).get("beat").files(), first);
        assertThat(a.md5s()).isEqualTo(b.md5s());
    }

    @Test
    void aFileNoSecretChangesIsShownAsItIs() {
        List<StepInput> steps = List.of(new StepInput("beat", BEAT, Map.of("t/script.j2", "{% if password %}auth: on{% endif %}\n"),
                List.of(), Map.of("password", Map.of("secret", "db")), Map.of("password", new SecretValue("db", "x", "s1"))));
        RenderedStep sent = renderer.render(instance, null, steps, Map.of()).get("beat");
        RenderedStep planned = renderer.render(instance, null, List.of(steps.getFirst().withSecretValues(n -> SecretReferences.REDACTED)),
                Map.of()).get("beat");
        StepFiles files = new StepFiles(sent.files(), planned);
        assertThat(files.shownContent(files.paths().iterator().next())).isEqualTo("auth: on");
    }

    @Test
    void referencesAreTopLevelWellNamedAndSecretParametersAreNeverGivenInClear() {
        assertThat(SecretReferences.of(Map.of("a", Map.of("secret", "db"), "b", "x", "c", Map.of("secret", 1))))
                .containsExactly(Map.entry("a", "db"));
        List<FieldError> problems = SecretReferences.problems("steps.s.params.context", Map.of(
                "password", "hunter2", "token", Map.of("secret", "../etc"), "nested", Map.of("deep", Map.of("secret", "db")),
                "mixed", Map.of("secret", "db", "other", 1), "listed", List.of(Map.of("secret", "db")),
                "fine", Map.of("secret", "db.v2")), Set.of("password", "fine"), "client");
        assertThat(problems).extracting(FieldError::field).containsExactlyInAnyOrder("steps.s.params.context.password",
                "steps.s.params.context.token", "steps.s.params.context.nested.deep", "steps.s.params.context.mixed",
                "steps.s.params.context.listed[0]");
        assertThat(problems.stream().filter(p -> p.field().endsWith(".password")).findFirst().orElseThrow().message())
                .contains("secret parameter of client").contains("drover secret set").doesNotContain("hunter2");
        assertThatThrownBy(() -> new StepFiles(Map.of("a", "x"), RenderedStep.of(Map.of("b", "x"))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

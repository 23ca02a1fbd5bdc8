package io.drover.core.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TemplateRendererTest {
    private final TemplateRenderer renderer = new TemplateRenderer();

    record Case(String name, String template, String expected) {
    }

    record Cases(Map<String, Object> context, List<Case> cases) {
    }

    /** Each case's expected text is what Jinja2 3.1 rendered (see jinja2_cases.py beside the data file). */
    @Test
    @SuppressWarnings("unchecked")
    void rendersLikeJinja2() throws IOException {
        Cases cases;
        try (InputStream in = getClass().getResourceAsStream("/render/jinja2_cases.json")) {
            cases = new ObjectMapper().readValue(in, new TypeReference<Cases>() {
            });
        }
        assertThat(cases.cases()).hasSizeGreaterThan(10);
        List<String> mismatches = new ArrayList<>();
        for (Case c : cases.cases()) {
            String actual;
            try {
                actual = renderer.render(c.name(), c.template(), (Map<String, ?>) PyNone.replaceNulls(cases.context()));
            } catch (RenderException e) {
                actual = "<error " + e.getMessage() + ">";
            }
            if (!c.expected().equals(actual)) {
                mismatches.add(c.name() + ": expected [" + c.expected() + "] but was [" + actual + "]");
            }
        }
        assertThat(mismatches).isEmpty();
    }

    @Test
    void unknownVariableNamesTemplateAndLine() {
        assertThatThrownBy(() -> renderer.render("beat.yaml", "a: 1\nb: {{ host.nope }}\n", Map.of("host", Map.of())))
                .isInstanceOf(RenderException.class)
                .hasMessageContaining("template beat.yaml")
                .hasMessageContaining("line 2");
    }

    @Test
    void includeIsRefused() {
        assertThatThrownBy(() -> renderer.render("t", "{% include '/etc/passwd' %}", Map.of()))
                .isInstanceOf(RenderException.class)
                .hasMessageContaining("cannot include or import");
    }

    @Test
    void outputOverTheLimitFails() {
        assertThatThrownBy(() -> renderer.render("big", "{% for i in range(1000) %}{{ chunk }}{% endfor %}",
                Map.of("chunk", "x".repeat(2_000))))
                .isInstanceOf(RenderException.class)
                .hasMessageContaining("template big");
    }

    @Test
    void renderOverTheTimeLimitFailsWithTheLine() {
        TemplateRenderer quick = new TemplateRenderer(Duration.ofMillis(100));
        String spin = "ok\n{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}"
                + "{% set x = a %}{% endfor %}{% endfor %}{% endfor %}";
        long start = System.nanoTime();
        assertThatThrownBy(() -> quick.render("spin.conf", spin, Map.of()))
                .isInstanceOf(RenderException.class)
                .hasMessageContaining("template spin.conf")
                .hasMessageContaining("longer than 100 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        // the limit is per render: the same renderer renders again afterwards
        assertThat(quick.render("next", "{{ 1 + 1 }}", Map.of())).isEqualTo("2");
    }

    /** Each name that reads randomness or the clock, with a template using it (as a filter or a function). */
    static List<String[]> notDeterministic() {
        return List.of(
                new String[] {"random", "{{ [1, 2, 3]|random }}"},
                new String[] {"shuffle", "{{ [1, 2, 3]|shuffle }}"},
                new String[] {"unixtimestamp", "{{ 0|unixtimestamp }}"},
                new String[] {"datetimeformat", "{{ 0|datetimeformat('%Y') }}"},
                new String[] {"date", "{{ 0|date('%Y') }}"},
                new String[] {"format_date", "{{ 0|format_date }}"},
                new String[] {"format_datetime", "{{ 0|format_datetime }}"},
                new String[] {"format_time", "{{ 0|format_time }}"},
                new String[] {"plus_time", "{{ 0|plus_time(1, 'days') }}"},
                new String[] {"minus_time", "{{ 0|minus_time(1, 'days') }}"},
                new String[] {"between_times", "{{ 0|between_times(1, 'days') }}"},
                new String[] {"today", "a\n{{ today() }}"},
                new String[] {"unixtimestamp", "{{ unixtimestamp() }}"},
                new String[] {"datetimeformat", "{{ datetimeformat(0, '%Y') }}"},
                new String[] {"format_date", "{{ format_date(0) }}"},
                new String[] {"format_datetime", "{{ format_datetime(0) }}"},
                new String[] {"format_time", "{{ format_time(0) }}"},
                new String[] {"random", "{% set pick = [1, 2]|random %}{{ pick }}"},
                new String[] {"today", "{% if today() %}x{% endif %}"});
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("notDeterministic")
    void aFilterOrFunctionThatIsNotDeterministicFailsToRenderAndIsRefusedByTheSyntaxCheck(String name, String template) {
        String expected = "'" + name + "' is not available: templates are deterministic";
        assertThatThrownBy(() -> renderer.render("t.conf", template, Map.of()))
                .isInstanceOf(RenderException.class)
                .hasMessageStartingWith("template t.conf: line " + (template.startsWith("a\n") ? 2 : 1) + ": ")
                .hasMessageContaining(expected);
        assertThat(renderer.syntaxErrors(template)).singleElement().asString().contains(expected);
    }

    @Test
    void everyNameThatIsNotDeterministicIsTested() {
        Set<String> tested = new TreeSet<>();
        notDeterministic().forEach(c -> tested.add(c[0]));
        assertThat(tested).isEqualTo(TemplateRenderer.NOT_DETERMINISTIC);
    }

    @Test
    void theSameNamesAsVariablesOrInPlainTextStillRender() {
        String template = "random: {{ random }} today | shuffle\n{{ d.today }} {{ 'x'|upper }}";
        Map<String, Object> context = Map.of("random", 4, "d", Map.of("today", "monday"));
        assertThat(renderer.syntaxErrors(template)).isEmpty();
        assertThat(renderer.render("t", template, context)).isEqualTo(renderer.render("t", template, context))
                .isEqualTo("random: 4 today | shuffle\nmonday X");
    }
}

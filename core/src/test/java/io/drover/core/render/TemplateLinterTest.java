package io.drover.core.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TemplateLinterTest {
    final TemplateLinter linter = new TemplateLinter(new TemplateRenderer());

    @Test
    void knownRootsAndAnythingBelowThemPass() {
        assertThat(linter.lint("a.conf", "ip: {{ cmdb_instance.host.bk_host_innerip }}\n{% for p in cmdb_instance.service.processes %}"
                + "{{ p.port }}{% endfor %}\nport: {{ control_info.listen_port }}\nx: {{ interval }}", List.of("cmdb_instance",
                "control_info", "interval"))).isEmpty();
    }

    @Test
    void unknownVariablesAndSyntaxErrorsAreReportedWithTheTemplateAndLine() {
        assertThat(linter.lint("exporter.yaml", "a: 1\nb: {{ scrape_intervall }}\n", List.of("scrape_interval")))
                .singleElement().asString().contains("template exporter.yaml").contains("line 2").contains("scrape_intervall");
        assertThat(linter.lint("broken.yaml", "a: {% if %}", List.of())).singleElement().asString()
                .contains("template broken.yaml");
    }
}

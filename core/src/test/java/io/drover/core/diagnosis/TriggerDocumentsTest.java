package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.testing.ReferenceData;
import io.drover.model.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Triggers and diagnoses as KubeDiag users write them, and Drover's own sources. */
class TriggerDocumentsTest {
    @Test
    void theReferenceAlertTriggerIsReadAndMatchesItsAlert() throws Exception {
        Map<?, ?> document = Json.yaml().readValue(ReferenceData.dir("kubediag").resolve("triggers/node-clock-not-synchronising.trigger.yaml")
                .toFile(), Map.class);
        TriggerDocuments.Trigger trigger = TriggerDocuments.trigger(document);
        assertThat(trigger.operationSet()).isEqualTo("node-clock-debugger");
        assertThat(trigger.source()).isEqualTo("prometheusAlertTemplate");
        AlertTemplate template = AlertTemplate.compile(trigger.alert());
        assertThat(template.matches(AlertTemplateTest.CLOCK)).isTrue();
        assertThat(template.request(AlertTemplateTest.CLOCK, trigger.parameters())).isEqualTo(new AlertTemplate.Request("my-node",
                Map.of("endpoint", "https", "service", "node-exporter", "severity", "warning")));
    }

    @Test
    void everyReferenceDiagnosisIsRead() throws Exception {
        List<Map<String, Object>> diagnoses = DiagnosisDocumentsTest.documents("Diagnosis");
        assertThat(diagnoses).hasSizeGreaterThanOrEqualTo(14);
        int read = 0;
        for (Map<String, Object> document : diagnoses) {
            Map<?, ?> spec = (Map<?, ?>) document.get("spec");
            if (spec.get("nodeName") == null) {
                assertThatThrownBy(() -> TriggerDocuments.diagnosis(document)).hasMessage(
                        "spec.podReference: Drover diagnoses hosts, not pods: name the host with spec.nodeName or spec.hosts");
                continue;
            }
            TriggerDocuments.Diagnosis diagnosis = TriggerDocuments.diagnosis(document);
            assertThat(diagnosis.hosts()).as(diagnosis.name()).containsExactly("my-node");
            if (spec.get("parameters") instanceof Map<?, ?> given) {
                given.forEach((k, v) -> assertThat(diagnosis.parameters()).containsEntry(String.valueOf(k), String.valueOf(v)));
            }
            if (spec.get("podReference") instanceof Map<?, ?> pod) {
                assertThat(diagnosis.parameters()).containsEntry("pod.name", String.valueOf(pod.get("name")))
                        .containsEntry("pod.namespace", String.valueOf(pod.get("namespace")));
            }
            read++;
        }
        assertThat(read).isEqualTo(diagnoses.size() - 1);
    }

    static Map<String, Object> trigger(Map<String, Object> spec) {
        return Map.of("kind", "Trigger", "metadata", Map.of("name", "t"), "spec", spec);
    }

    @Test
    void sourcesAreExactlyOneThatDroverSupports() {
        assertThatThrownBy(() -> TriggerDocuments.trigger(trigger(Map.of("operationSet", "s", "sourceTemplate",
                Map.of("commonEventTemplate", Map.of())))))
                .hasMessageContaining("spec.sourceTemplate.commonEventTemplate: is not supported here");
        assertThatThrownBy(() -> TriggerDocuments.trigger(trigger(Map.of("operationSet", "s", "sourceTemplate",
                Map.of("cronTemplate", Map.of("schedule", "* * * * *"), "droverEventTemplate", Map.of())))))
                .hasMessageContaining("one and only one of");
        assertThatThrownBy(() -> TriggerDocuments.trigger(trigger(Map.of("operationSet", "s", "sourceTemplate",
                Map.of("cronTemplate", Map.of("schedule", "*/5 * * * *"))))))
                .hasMessage("spec.nodeName: is required for a cron trigger (the host to diagnose)");
        assertThatThrownBy(() -> TriggerDocuments.trigger(trigger(Map.of("sourceTemplate",
                Map.of("droverEventTemplate", Map.of("regexp", Map.of("tag", "(")))))))
                .hasMessageContaining("spec.operationSet: is required").hasMessageContaining("is not a regular expression");
        TriggerDocuments.Trigger event = TriggerDocuments.trigger(trigger(Map.of("operationSet", "plugin-down", "parameters",
                Map.of("plugin", "bkmonitorbeat", "retries", 3), "sourceTemplate", Map.of("droverEventTemplate",
                        Map.of("regexp", Map.of("tag", "^drover/agent/.*/lost$"))))));
        assertThat(event.event()).isEqualTo(new TriggerDocuments.EventTemplate("^drover/agent/.*/lost$", null));
        assertThat(event.parameters()).isEqualTo(Map.of("plugin", "bkmonitorbeat", "retries", "3"));
    }

    @Test
    void aDiagnosisNamesItsHosts() {
        TriggerDocuments.Diagnosis many = TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s", "hosts", List.of("web-1", "10.0.0.5", 42))));
        assertThat(many.hosts()).containsExactly("web-1", "10.0.0.5", "42");
        assertThatThrownBy(() -> TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s")))).hasMessage("spec.nodeName: or spec.hosts or spec.hostSelector must name the host(s) to diagnose");
        assertThatThrownBy(() -> TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s", "hosts", List.of(Map.of()))))).hasMessageContaining("spec.hosts: must be a list");
        TriggerDocuments.Diagnosis selected = TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s", "hostSelector", Map.of("bk_biz_id", 2, "bk_module_id", 20))));
        assertThat(selected.hosts()).isEmpty();
        assertThat(selected.selector()).isEqualTo(Map.of("bk_biz_id", 2L, "bk_module_id", 20L));
        assertThatThrownBy(() -> TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s", "hostSelector", Map.of("rack", "r1", "bk_set_id", -1)))))
                .hasMessageContaining("spec.hostSelector.rack: is not bk_biz_id, bk_set_id or bk_module_id")
                .hasMessageContaining("spec.hostSelector.bk_set_id: must be a positive id");
        assertThatThrownBy(() -> TriggerDocuments.diagnosis(Map.of("kind", "Diagnosis", "metadata", Map.of("name", "d"),
                "spec", Map.of("operationSet", "s", "hostSelector", Map.of())))).hasMessageContaining("must name a business, set or module");
    }
}

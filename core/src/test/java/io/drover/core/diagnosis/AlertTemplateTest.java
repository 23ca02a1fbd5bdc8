package io.drover.core.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Alert templates as KubeDiag matches them (unanchored expressions), and the trigger example of reference-data. */
class AlertTemplateTest {
    /** The alert of reference-data/kubediag/triggers/node-clock-not-synchronising.trigger.yaml. */
    static final Alert CLOCK = new Alert("firing", Map.of("alertname", "NodeClockNotSynchronising", "container", "kube-rbac-proxy",
            "endpoint", "https", "instance", "my-node", "job", "node-exporter", "namespace", "monitoring",
            "pod", "node-exporter-2vqfp", "service", "node-exporter", "severity", "warning"),
            Map.of("summary", "Clock not synchronising."), "2026-11-25T05:00:00Z", "0001-01-01T00:00:00Z",
            "http://prometheus:9090/graph?g0.expr=x", null);

    static AlertTemplate.Spec spec(String alertName, Map<String, String> labels) {
        return new AlertTemplate.Spec(alertName, labels, Map.of(), null, null, null, "instance",
                List.of("endpoint", "service", "severity"));
    }

    @Test
    void theReferenceTriggerExampleGivesTheReferenceDiagnosis() {
        AlertTemplate template = AlertTemplate.compile(spec("NodeClockNotSynchronising", Map.of()));
        assertThat(template.matches(CLOCK)).isTrue();
        AlertTemplate.Request request = template.request(CLOCK, Map.of());
        assertThat(request.hostReference()).isEqualTo("my-node");
        assertThat(request.parameters()).isEqualTo(Map.of("endpoint", "https", "service", "node-exporter", "severity", "warning"));
    }

    @ParameterizedTest(name = "{0} / {1}={2}: {3}")
    @CsvSource(delimiter = '|', value = {
            "NodeClock | | | true",
            "Synchron | | | true",
            "^NodeClock$ | | | false",
            "'' | | | true",
            "Node.*Sync | severity | warn | true",
            "Node.*Sync | severity | ^critical$ | false",
            "Node | absent | .* | false",
            "Node | severity | '' | true",
            "nodeclock | | | false",
            "(?i)nodeclock | | | true"})
    void expressionsSearchAnywhere(String alertName, String label, String labelRegex, boolean matches) {
        Map<String, String> labels = label == null ? Map.of() : Map.of(label, labelRegex == null ? "" : labelRegex);
        assertThat(AlertTemplate.compile(spec(alertName, labels)).matches(CLOCK)).isEqualTo(matches);
    }

    @Test
    void annotationsTimesAndTheGeneratorAreMatchedToo() {
        AlertTemplate.Spec all = new AlertTemplate.Spec("Clock", Map.of(), Map.of("summary", "not synch"), "^2026-11-25",
                "0001", "prometheus:9090", null, List.of());
        assertThat(AlertTemplate.compile(all).matches(CLOCK)).isTrue();
        AlertTemplate.Spec wrongTime = new AlertTemplate.Spec("Clock", Map.of(), Map.of(), "^2025", null, null, null, List.of());
        assertThat(AlertTemplate.compile(wrongTime).matches(CLOCK)).isFalse();
        AlertTemplate.Spec missingAnnotation = new AlertTemplate.Spec("Clock", Map.of(), Map.of("runbook", ""), null, null, null, null, List.of());
        assertThat(AlertTemplate.compile(missingAnnotation).matches(CLOCK)).isFalse();
    }

    @Test
    void aBadExpressionIsRefusedNamingTheField() {
        assertThatThrownBy(() -> AlertTemplate.compile(spec("Node", Map.of("severity", "(unclosed"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("labels.severity").hasMessageContaining("(unclosed");
        assertThatThrownBy(() -> AlertTemplate.compile(spec("(".repeat(60) + ")".repeat(60), Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nests groups deeper than");
    }

    @Test
    void catastrophicBacktrackingEndsAsNoMatch() {
        Alert evil = new Alert("firing", Map.of("alertname", "a".repeat(40) + "!"), Map.of(), null, null, null, null);
        assertThat(AlertTemplate.compile(spec("^(a+)+$", Map.of())).matches(evil)).isFalse();
    }

    /** KubeDiag is Go: its triggers' expressions are RE2's, where Java's regex differs or refuses. */
    @ParameterizedTest(name = "{0} on {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "^web-[[:digit:]]+$ | web-12 | true",
            "^web-[[:alpha:]]+$ | web-12 | false",
            "^(?P<role>web)-\\d+$ | web-12 | true",
            "^(?<role>web)-\\d+$ | web-12 | true",
            "^[[:^digit:]]+$ | web | true",
            "(?U)^w.+ | web-12 | true",
            "\\pL+-\\d | web-1 | true",
            "^web\\z | web | true"})
    void expressionsAreRe2s(String alertName, String name, boolean matches) {
        Alert alert = new Alert("firing", Map.of("alertname", name), Map.of(), null, null, null, null);
        assertThat(AlertTemplate.compile(spec(alertName, Map.of())).matches(alert)).isEqualTo(matches);
    }

    @Test
    void javaOnlySyntaxIsRefusedAsGoRefusesIt() {
        for (String javaOnly : new String[] {"(a)\\1", "a(?=b)", "a++", "(?<=a)b", "\\p{javaLowerCase}"}) {
            assertThatThrownBy(() -> AlertTemplate.compile(spec(javaOnly, Map.of()))).as(javaOnly)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a regular expression (RE2 syntax)");
        }
        assertThatThrownBy(() -> AlertTemplate.compile(spec("((a{1000}){1000}){1000}", Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is too large");
    }

    @Test
    void fingerprintsFollowPrometheusAndIgnoreLabelOrder() {
        Alert one = new Alert("firing", Map.of("b", "2", "a", "1"), Map.of(), null, null, null, null);
        Alert same = new Alert("firing", new java.util.TreeMap<>(Map.of("a", "1", "b", "2")), Map.of(), null, null, null, null);
        assertThat(one.fingerprintOrComputed()).isEqualTo(same.fingerprintOrComputed()).matches("[0-9a-f]{16}");
        // FNV-1a 64 over "a" 0xff "1" 0xff "b" 0xff "2" 0xff, as prometheus/common model.LabelsToSignature computes it.
        assertThat(one.fingerprintOrComputed()).isEqualTo(fnv("a\u00ff1\u00ffb\u00ff2\u00ff"));
        assertThat(new Alert("firing", Map.of("a", "1"), Map.of(), null, null, null, "given").fingerprintOrComputed()).isEqualTo("given");
        assertThat(new Alert("resolved", Map.of(), Map.of(), null, null, null, null).resolved()).isTrue();
    }

    static String fnv(String latin1) {
        long hash = 0xcbf29ce484222325L;
        for (char c : latin1.toCharArray()) {
            hash ^= c;
            hash *= 0x100000001b3L;
        }
        return String.format("%016x", hash);
    }

    @ParameterizedTest
    @CsvSource({"my-node, my-node", "web-1:9100, web-1", "10.0.0.5:9100, 10.0.0.5", "[fe80::1]:9100, fe80::1",
            "fe80::1, fe80::1", "' host ', host", "web-1:http, web-1:http"})
    void instanceLabelsNameTheHost(String value, String host) {
        assertThat(HostReference.hostOf(value)).isEqualTo(host);
    }
}

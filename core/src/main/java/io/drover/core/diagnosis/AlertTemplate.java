package io.drover.core.diagnosis;

import io.drover.core.match.Re2Regex;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A trigger's Prometheus alert template, compiled: unanchored regular expressions (as Go's {@code MatchString}; an
 * empty one matches anything) over the alert's name, the labels and annotations it names (which the alert must
 * have), its times and generator URL; the label that names the host to diagnose; the labels copied into the
 * diagnosis's parameters.
 */
public final class AlertTemplate {
    /** The template as a trigger writes it. */
    public record Spec(String alertName, Map<String, String> labels, Map<String, String> annotations, String startsAt,
                       String endsAt, String generatorURL, String nodeNameReferenceLabel, List<String> parameterInjectionLabels) {
        public Spec {
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
            parameterInjectionLabels = parameterInjectionLabels == null ? List.of() : List.copyOf(parameterInjectionLabels);
        }
    }

    /** What a matching alert asks for: the host named by the reference label (null: the trigger's), and the parameters. */
    public record Request(String hostReference, Map<String, String> parameters) {
    }

    private final Spec spec;
    private final Re2Regex alertName;
    private final Map<String, Re2Regex> labels = new LinkedHashMap<>();
    private final Map<String, Re2Regex> annotations = new LinkedHashMap<>();
    private final Re2Regex startsAt;
    private final Re2Regex endsAt;
    private final Re2Regex generatorURL;

    private AlertTemplate(Spec spec) {
        this.spec = spec;
        this.alertName = regex(spec.alertName(), "alertName");
        spec.labels().forEach((k, v) -> labels.put(k, regex(v, "labels." + k)));
        spec.annotations().forEach((k, v) -> annotations.put(k, regex(v, "annotations." + k)));
        this.startsAt = regex(spec.startsAt(), "startsAt");
        this.endsAt = regex(spec.endsAt(), "endsAt");
        this.generatorURL = regex(spec.generatorURL(), "generatorURL");
    }

    /** The template, or an {@link IllegalArgumentException} naming the expression that is not one. */
    public static AlertTemplate compile(Spec spec) {
        return new AlertTemplate(spec);
    }

    public boolean matches(Alert alert) {
        if (!find(alertName, alert.name())) {
            return false;
        }
        for (Map.Entry<String, Re2Regex> label : labels.entrySet()) {
            String value = alert.labels().get(label.getKey());
            if (value == null || !find(label.getValue(), value)) {
                return false;
            }
        }
        for (Map.Entry<String, Re2Regex> annotation : annotations.entrySet()) {
            String value = alert.annotations().get(annotation.getKey());
            if (value == null || !find(annotation.getValue(), value)) {
                return false;
            }
        }
        return find(startsAt, nullToEmpty(alert.startsAt())) && find(endsAt, nullToEmpty(alert.endsAt()))
                && find(generatorURL, nullToEmpty(alert.generatorURL()));
    }

    /** The request a matching alert makes: the reference label's value, and the trigger's parameters overlaid with the injected labels. */
    public Request request(Alert alert, Map<String, String> triggerParameters) {
        Map<String, String> parameters = new LinkedHashMap<>(triggerParameters == null ? Map.of() : triggerParameters);
        for (String label : spec.parameterInjectionLabels()) {
            String value = alert.labels().get(label);
            if (value != null) {
                parameters.put(label, value);
            }
        }
        String reference = spec.nodeNameReferenceLabel() == null ? null : alert.labels().get(spec.nodeNameReferenceLabel());
        return new Request(reference == null || reference.isBlank() ? null : reference, parameters);
    }

    private static boolean find(Re2Regex regex, String value) {
        return regex == null || regex.find(value);
    }

    private static Re2Regex regex(String text, String field) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        return Re2Regex.compile(text, field);
    }

    private static String nullToEmpty(String text) {
        return text == null ? "" : text;
    }
}

package io.drover.core.diagnosis;

import io.drover.core.diagnosis.DocumentException.Problem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * KubeDiag's Trigger and Diagnosis documents, with Drover's targets: a host is named by {@code nodeName} (a host
 * name, as KubeDiag's node), or by {@code hosts} (names, addresses or ids); a trigger's source is exactly one of
 * {@code prometheusAlertTemplate}, {@code droverEventTemplate} (regular expressions over an event's tag and data) or
 * {@code cronTemplate} ({@code schedule}, 5 fields, and a time zone).
 */
public final class TriggerDocuments {
    /** A trigger as written; exactly one of the three templates is set. */
    public record Trigger(String name, String operationSet, Map<String, String> parameters, String nodeName,
                          AlertTemplate.Spec alert, EventTemplate event, CronTemplate cron) {
        public String source() {
            return alert != null ? "prometheusAlertTemplate" : event != null ? "droverEventTemplate" : "cronTemplate";
        }
    }

    /** Regular expressions over a Drover event's tag and over its data as JSON text (empty: anything). */
    public record EventTemplate(String tag, String data) {
    }

    /** A cron schedule (minute hour day-of-month month day-of-week) in a time zone (default UTC). */
    public record CronTemplate(String schedule, String timeZone) {
    }

    /**
     * A diagnosis request: the operation set, the hosts by name/address/id and by a CMDB selector (every host under a
     * business, set or module: {@code bk_biz_id}, {@code bk_set_id}, {@code bk_module_id}), and the parameters.
     */
    public record Diagnosis(String name, String operationSet, List<String> hosts, Map<String, Long> selector,
                            Map<String, String> parameters) {
    }

    private static final List<String> SELECTOR_KEYS = List.of("bk_biz_id", "bk_set_id", "bk_module_id");

    private TriggerDocuments() {
    }

    public static Trigger trigger(Map<?, ?> document) {
        List<Problem> problems = new ArrayList<>();
        DiagnosisDocuments.expectKind(document, "Trigger", problems);
        String name = DiagnosisDocuments.name(document, problems);
        Map<?, ?> spec = DiagnosisDocuments.map(document.get("spec"), "spec", problems);
        String operationSet = required(spec.get("operationSet"), "spec.operationSet", problems);
        Map<String, String> parameters = strings(spec.get("parameters"), "spec.parameters", problems);
        String nodeName = DiagnosisDocuments.text(spec.get("nodeName"), "spec.nodeName", problems);
        Map<?, ?> source = DiagnosisDocuments.map(spec.get("sourceTemplate"), "spec.sourceTemplate", problems);
        List<String> given = source.keySet().stream().map(String::valueOf).toList();
        AlertTemplate.Spec alert = null;
        EventTemplate event = null;
        CronTemplate cron = null;
        if (given.size() != 1) {
            problems.add(new Problem("spec.sourceTemplate", "one and only one of prometheusAlertTemplate, droverEventTemplate "
                    + "or cronTemplate should be specified"));
        } else {
            String kind = given.get(0);
            Map<?, ?> template = DiagnosisDocuments.map(source.get(kind), "spec.sourceTemplate." + kind, problems);
            switch (kind) {
                case "prometheusAlertTemplate" -> alert = alert(template, problems);
                case "droverEventTemplate" -> event = event(template, problems);
                case "cronTemplate" -> {
                    cron = new CronTemplate(required(template.get("schedule"), "spec.sourceTemplate.cronTemplate.schedule", problems),
                            DiagnosisDocuments.text(template.get("timeZone"), "spec.sourceTemplate.cronTemplate.timeZone", problems));
                    if (nodeName == null) {
                        problems.add(new Problem("spec.nodeName", "is required for a cron trigger (the host to diagnose)"));
                    }
                }
                default -> problems.add(new Problem("spec.sourceTemplate." + kind, "is not supported here (prometheusAlertTemplate, "
                        + "droverEventTemplate or cronTemplate)"));
            }
        }
        if (!problems.isEmpty()) {
            throw new DocumentException(problems);
        }
        return new Trigger(name, operationSet, parameters, nodeName, alert, event, cron);
    }

    public static Diagnosis diagnosis(Map<?, ?> document) {
        List<Problem> problems = new ArrayList<>();
        DiagnosisDocuments.expectKind(document, "Diagnosis", problems);
        String name = DiagnosisDocuments.name(document, problems);
        Map<?, ?> spec = DiagnosisDocuments.map(document.get("spec"), "spec", problems);
        String operationSet = required(spec.get("operationSet"), "spec.operationSet", problems);
        List<String> hosts = new ArrayList<>();
        String nodeName = DiagnosisDocuments.text(spec.get("nodeName"), "spec.nodeName", problems);
        if (nodeName != null) {
            hosts.add(nodeName);
        }
        if (spec.get("hosts") != null) {
            if (!(spec.get("hosts") instanceof List<?> list) || list.isEmpty() || list.size() > 10_000
                    || list.stream().anyMatch(h -> !(h instanceof String || h instanceof Integer || h instanceof Long))) {
                problems.add(new Problem("spec.hosts", "must be a list of 1 to 10000 host names, addresses or ids"));
            } else {
                list.forEach(h -> hosts.add(String.valueOf(h)));
            }
        }
        Map<String, Long> selector = new LinkedHashMap<>();
        if (spec.get("hostSelector") != null) {
            Map<?, ?> given = DiagnosisDocuments.map(spec.get("hostSelector"), "spec.hostSelector", problems);
            given.forEach((k, v) -> {
                if (!SELECTOR_KEYS.contains(String.valueOf(k))) {
                    problems.add(new Problem("spec.hostSelector." + k, "is not bk_biz_id, bk_set_id or bk_module_id"));
                } else if (!(v instanceof Integer || v instanceof Long) || ((Number) v).longValue() < 1) {
                    problems.add(new Problem("spec.hostSelector." + k, "must be a positive id"));
                } else {
                    selector.put(String.valueOf(k), ((Number) v).longValue());
                }
            });
            if (given.isEmpty()) {
                problems.add(new Problem("spec.hostSelector", "must name a business, set or module (bk_biz_id, bk_set_id, bk_module_id)"));
            }
        }
        if (hosts.isEmpty() && selector.isEmpty() && spec.get("podReference") != null && spec.get("hostSelector") == null) {
            problems.add(new Problem("spec.podReference", "Drover diagnoses hosts, not pods: name the host with spec.nodeName or spec.hosts"));
        } else if (hosts.isEmpty() && spec.get("hostSelector") == null && !problems.stream().anyMatch(p -> p.field().equals("spec"))) {
            problems.add(new Problem("spec.nodeName", "or spec.hosts or spec.hostSelector must name the host(s) to diagnose"));
        }
        Map<String, String> parameters = strings(spec.get("parameters"), "spec.parameters", problems);
        // KubeDiag gives a pod reference to operations as the context keys pod.namespace, pod.name and container.
        Map<String, String> pod = strings(spec.get("podReference"), "spec.podReference", problems);
        putIfPresent(parameters, "pod.namespace", pod.get("namespace"));
        putIfPresent(parameters, "pod.name", pod.get("name"));
        putIfPresent(parameters, "container", pod.get("container"));
        if (!problems.isEmpty()) {
            throw new DocumentException(problems);
        }
        return new Diagnosis(name, operationSet, List.copyOf(hosts), Map.copyOf(selector), parameters);
    }

    private static AlertTemplate.Spec alert(Map<?, ?> template, List<Problem> problems) {
        Map<?, ?> regexp = template.get("regexp") == null ? Map.of()
                : DiagnosisDocuments.map(template.get("regexp"), "spec.sourceTemplate.prometheusAlertTemplate.regexp", problems);
        String field = "spec.sourceTemplate.prometheusAlertTemplate.";
        List<String> injected = new ArrayList<>();
        if (template.get("parameterInjectionLabels") instanceof List<?> labels) {
            labels.forEach(l -> injected.add(String.valueOf(l)));
        } else if (template.get("parameterInjectionLabels") != null) {
            problems.add(new Problem(field + "parameterInjectionLabels", "must be a list of label names"));
        }
        AlertTemplate.Spec spec = new AlertTemplate.Spec(DiagnosisDocuments.text(regexp.get("alertName"), field + "regexp.alertName", problems),
                strings(regexp.get("labels"), field + "regexp.labels", problems),
                strings(regexp.get("annotations"), field + "regexp.annotations", problems),
                DiagnosisDocuments.text(regexp.get("startsAt"), field + "regexp.startsAt", problems),
                DiagnosisDocuments.text(regexp.get("endsAt"), field + "regexp.endsAt", problems),
                DiagnosisDocuments.text(regexp.get("generatorURL"), field + "regexp.generatorURL", problems),
                DiagnosisDocuments.text(template.get("nodeNameReferenceLabel"), field + "nodeNameReferenceLabel", problems), injected);
        try {
            AlertTemplate.compile(spec);
        } catch (IllegalArgumentException e) {
            problems.add(new Problem(field + "regexp", e.getMessage()));
        }
        return spec;
    }

    private static EventTemplate event(Map<?, ?> template, List<Problem> problems) {
        String field = "spec.sourceTemplate.droverEventTemplate.";
        Map<?, ?> regexp = template.get("regexp") == null ? Map.of() : DiagnosisDocuments.map(template.get("regexp"), field + "regexp", problems);
        EventTemplate event = new EventTemplate(DiagnosisDocuments.text(regexp.get("tag"), field + "regexp.tag", problems),
                DiagnosisDocuments.text(regexp.get("data"), field + "regexp.data", problems));
        for (String text : new String[] {event.tag(), event.data()}) {
            if (text != null && !text.isEmpty()) {
                try {
                    io.drover.core.match.Re2Regex.compile(text, field + "regexp");
                } catch (IllegalArgumentException e) {
                    problems.add(new Problem(field + "regexp", e.getMessage()));
                }
            }
        }
        return event;
    }

    private static void putIfPresent(Map<String, String> map, String key, String value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    private static String required(Object value, String field, List<Problem> problems) {
        String text = DiagnosisDocuments.text(value, field, problems);
        if (value == null || (text != null && text.isBlank())) {
            problems.add(new Problem(field, "is required"));
        }
        return text;
    }

    private static Map<String, String> strings(Object value, String field, List<Problem> problems) {
        Map<String, String> map = new LinkedHashMap<>();
        if (value == null) {
            return map;
        }
        if (!(value instanceof Map<?, ?> given)) {
            problems.add(new Problem(field, "must be a mapping of text"));
            return map;
        }
        given.forEach((k, v) -> {
            if (v instanceof String || v instanceof Number || v instanceof Boolean) {
                map.put(String.valueOf(k), String.valueOf(v));
            } else {
                problems.add(new Problem(field + "." + k, "must be text"));
            }
        });
        return map;
    }
}

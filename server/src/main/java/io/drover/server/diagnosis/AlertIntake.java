package io.drover.server.diagnosis;

import io.drover.core.diagnosis.Alert;
import io.drover.core.diagnosis.AlertTemplate;
import io.drover.core.diagnosis.HostReference;
import io.drover.core.diagnosis.TriggerDocuments;
import io.drover.model.diagnosis.AlertReceipt;
import io.drover.model.diagnosis.DiagnosesStarted;
import io.drover.model.inventory.Host;
import io.drover.server.auth.Principal;
import io.drover.server.events.EventStore;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * Prometheus alerts in, diagnoses out, as KubeDiag's alertmanager endpoint: resolved alerts are skipped; the first
 * trigger (in name order) whose template matches wins; the host comes from the template's reference label (an
 * {@code instance} such as {@code web-1:9100} names the host web-1) or else the trigger's {@code nodeName}; an alert
 * whose fingerprint started a diagnosis within the repeat interval starts nothing (the fingerprint is recorded with
 * the diagnosis, so an alert whose start failed is not a repeat). A caller limited to some
 * businesses starts diagnoses only on their hosts.
 */
public final class AlertIntake {
    public static final int MAX_ALERTS = 10_000;

    private final Jdbi jdbi;
    private final EventStore events;
    private final DiagnosisStore repository;
    private final DiagnosisCatalog catalog;
    private final Diagnoses diagnoses;
    private final Clock clock;
    private final Duration repeatInterval;
    private static final int MAX_REMEMBERED = 100_000;
    private final Map<TriggerDocuments.Trigger, AlertTemplate> compiled = new ConcurrentHashMap<>();
    private final Map<String, OffsetDateTime> recentlyFired = new java.util.HashMap<>();

    AlertIntake(Jdbi jdbi, EventStore events, DiagnosisStore repository, DiagnosisCatalog catalog, Diagnoses diagnoses, Clock clock, Duration repeatInterval) {
        this.jdbi = jdbi;
        this.events = events;
        this.repository = repository;
        this.catalog = catalog;
        this.diagnoses = diagnoses;
        this.clock = clock;
        this.repeatInterval = repeatInterval;
    }

    /** Fingerprints are claimed one batch at a time, so that two deliveries of one alert start one diagnosis. */
    public synchronized AlertReceipt receive(Principal principal, List<Alert> alerts) {
        int resolved = 0;
        int repeated = 0;
        int unmatched = 0;
        List<DiagnosesStarted.StartedDiagnosis> started = new ArrayList<>();
        List<AlertReceipt.Skipped> skipped = new ArrayList<>();
        List<TriggerDocuments.Trigger> triggers = catalog.triggers().stream().filter(t -> t.alert() != null).toList();
        if (compiled.size() > 10_000) {
            compiled.clear();
        }
        OffsetDateTime now = OffsetDateTime.now(clock);
        for (Alert alert : alerts) {
            if (alert.resolved()) {
                resolved++;
                continue;
            }
            TriggerDocuments.Trigger trigger = triggers.stream().filter(t -> template(t).matches(alert)).findFirst().orElse(null);
            if (trigger == null) {
                unmatched++;
                continue;
            }
            String fingerprint = alert.fingerprintOrComputed();
            AlertTemplate.Request request = template(trigger).request(alert, trigger.parameters());
            String reference = request.hostReference() != null ? HostReference.hostOf(request.hostReference()) : trigger.nodeName();
            if (reference == null) {
                skipped.add(new AlertReceipt.Skipped(alert.name(), fingerprint, "trigger " + trigger.name()
                        + " matched, but the alert has no host label and the trigger no nodeName"));
                continue;
            }
            // among the token's businesses only: another business's host is as missing
            Diagnoses.Lookup lookup = diagnoses.host(principal, reference);
            Host host = lookup.host();
            if (host == null) {
                skipped.add(new AlertReceipt.Skipped(alert.name(), fingerprint, "trigger " + trigger.name() + ": " + lookup.problem()));
                continue;
            }
            // Repeats are told apart per business: a fingerprint is whatever the sender says (or a hash of labels anyone
            // can write), and one business's alert must not silence another's, nor tell it that the other's fired.
            String claim = io.drover.core.Hashing.sha256(host.bkBizId() + "/" + fingerprint);
            OffsetDateTime fired = recentlyFired.get(claim);
            if (fired != null && fired.isAfter(now.minus(repeatInterval))) {
                repeated++;
                continue;
            }
            String name = "prometheus-alert." + alert.name().toLowerCase(Locale.ROOT).replaceAll("[^-a-z0-9]+", "-") + "."
                    + fingerprint.substring(0, Math.min(7, fingerprint.length())) + "." + now.toEpochSecond();
            // The fingerprint is claimed in the transaction that stores the diagnosis: a start that fails (the batch
            // answers 500) leaves it free for Alertmanager's retry.
            Optional<DiagnosesStarted.StartedDiagnosis> diagnosis = diagnoses.start(new Diagnoses.Request(name, trigger.operationSet(),
                    host, request.parameters(), "alert", trigger.name()), principal.name(),
                    h -> repository.claimFingerprint(h, claim, now.minus(repeatInterval), now));
            if (diagnosis.isEmpty()) {
                repeated++;
                continue;
            }
            remember(claim, now);
            started.add(diagnosis.get());
        }
        AlertReceipt receipt = new AlertReceipt(alerts.size(), resolved, repeated, unmatched, started, skipped);
        Map<String, Object> data = new java.util.LinkedHashMap<>();
        data.put("received", receipt.received());
        data.put("resolved", resolved);
        data.put("repeated", repeated);
        data.put("unmatched", unmatched);
        data.put("started", started.stream().map(DiagnosesStarted.StartedDiagnosis::id).toList());
        data.put("skipped", skipped.size());
        data.put("caller", principal.name());
        jdbi.useTransaction(h -> events.append(h, "drover/diagnosis/alerts/received", data));
        events.publishPending();
        return receipt;
    }

    /**
     * Repeats are most of what Alertmanager sends: a fingerprint claimed here is remembered, so that its repeats are
     * answered without the database. The database stays the record (a restart reads it); the memory is bounded.
     */
    private void remember(String fingerprint, OffsetDateTime at) {
        if (recentlyFired.size() >= MAX_REMEMBERED) {
            OffsetDateTime expired = at.minus(repeatInterval);
            recentlyFired.values().removeIf(t -> !t.isAfter(expired));
            if (recentlyFired.size() >= MAX_REMEMBERED) {
                recentlyFired.clear();
            }
        }
        recentlyFired.put(fingerprint, at);
    }

    /** Forgets fingerprints older than the repeat interval. */
    int prune() {
        return jdbi.withHandle(h -> repository.pruneFingerprints(h, OffsetDateTime.now(clock).minus(repeatInterval)));
    }

    private AlertTemplate template(TriggerDocuments.Trigger trigger) {
        return compiled.computeIfAbsent(trigger, t -> AlertTemplate.compile(t.alert()));
    }
}

package io.drover.server.diagnosis;

import io.drover.core.diagnosis.CronSchedule;
import io.drover.core.diagnosis.TriggerDocuments;
import io.drover.server.events.EventStore;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cron triggers, checked once a minute as KubeDiag's cron scheduler: the scheduled times since the trigger last
 * fired (or was applied) are counted; when one or more are due, one diagnosis starts on the trigger's host and the
 * trigger's last schedule time becomes now (only with a diagnosis started: a failed start is tried again at the next
 * check, an error event each time). More than {@link #MAX_MISSED} missed times (a server down for long)
 * start nothing and raise the event {@code drover/diagnosis/trigger/<name>/error}; unlike KubeDiag, which stays stuck
 * on that error, the count then starts again from now.
 */
public final class CronTriggers {
    static final int MAX_MISSED = 100;
    private static final Logger log = LoggerFactory.getLogger(CronTriggers.class);

    private final DiagnosisCatalog catalog;
    private final DiagnosisStore repository;
    private final Diagnoses diagnoses;
    private final Jdbi jdbi;
    private final EventStore events;
    private final Clock clock;

    CronTriggers(DiagnosisCatalog catalog, DiagnosisStore repository, Diagnoses diagnoses, Jdbi jdbi, EventStore events, Clock clock) {
        this.catalog = catalog;
        this.repository = repository;
        this.diagnoses = diagnoses;
        this.jdbi = jdbi;
        this.events = events;
        this.clock = clock;
    }

    /** One check of every cron trigger; returns how many diagnoses it started. */
    public int tick() {
        Instant now = clock.instant();
        Map<String, OffsetDateTime> last = catalog.triggerTimes();
        int started = 0;
        for (TriggerDocuments.Trigger trigger : catalog.triggers()) {
            if (trigger.cron() == null || !last.containsKey(trigger.name())) {
                continue;
            }
            try {
                ZoneId zone = trigger.cron().timeZone() == null ? ZoneOffset.UTC : ZoneId.of(trigger.cron().timeZone());
                CronSchedule.Due due = CronSchedule.parse(trigger.cron().schedule()).due(last.get(trigger.name()).toInstant(), now, zone,
                        MAX_MISSED);
                if (due.missed() == 0) {
                    continue;
                }
                OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
                if (due.tooMany()) {
                    catalog.scheduled(trigger.name(), at);
                    error(trigger, "too many missed start times (> " + MAX_MISSED + "); counting again from " + now);
                    continue;
                }
                Diagnoses.Lookup lookup = diagnoses.host(trigger.nodeName());
                if (lookup.host() == null) {
                    error(trigger, lookup.problem());
                    continue;
                }
                // As KubeDiag, lastScheduleTime is the last successful schedule: advanced in the transaction that
                // stores the diagnosis, so a start that fails is tried again at the next tick.
                OffsetDateTime seen = last.get(trigger.name());
                if (diagnoses.start(new Diagnoses.Request("cron." + trigger.name() + "." + due.latest().getEpochSecond(), trigger.operationSet(),
                        lookup.host(), trigger.parameters(), "cron", trigger.name()), "system:diagnosis",
                        h -> repository.advanceSchedule(h, trigger.name(), seen, at)).isPresent()) {
                    started++;
                }
            } catch (RuntimeException e) {
                log.warn("cron trigger {} failed: {}", trigger.name(), e.getMessage());
                error(trigger, e.getMessage());
            }
        }
        return started;
    }

    private void error(TriggerDocuments.Trigger trigger, String message) {
        log.warn("cron trigger {}: {}", trigger.name(), message);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("trigger", trigger.name());
        data.put("message", message);
        jdbi.useTransaction(h -> events.append(h, "drover/diagnosis/trigger/" + trigger.name() + "/error", data));
        events.publishPending();
    }
}

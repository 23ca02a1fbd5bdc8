package io.drover.server.diagnosis;

import io.drover.core.Hashing;
import io.drover.core.diagnosis.CronSchedule;
import io.drover.core.diagnosis.DiagnosisDocuments;
import io.drover.core.diagnosis.DocumentException;
import io.drover.core.diagnosis.GraphException;
import io.drover.core.diagnosis.Operation;
import io.drover.core.diagnosis.OperationGraph;
import io.drover.core.diagnosis.TriggerDocuments;
import io.drover.model.Json;
import io.drover.model.api.Problem.FieldError;
import io.drover.model.diagnosis.DiagnosisObject;
import io.drover.model.diagnosis.KubeDocument;
import io.drover.server.errors.DomainException;
import io.drover.server.store.Sql;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * The diagnosis library: Operations, OperationSets and Triggers, each checked as KubeDiag checks it (and more: an
 * OperationSet's graph and its operations when it is applied, a trigger's operation set, regular expressions and
 * schedule). The built-in library ships with the server and is loaded at every start; a document a user applies under
 * a built-in name replaces it for good.
 */
public final class DiagnosisCatalog {
    public static final String OPERATION = "Operation";
    public static final String OPERATION_SET = "OperationSet";
    public static final String TRIGGER = "Trigger";
    static final String LIBRARY = "/io/drover/server/diagnosis/library.yaml";

    /** An OperationSet ready to run: its paths (node ids from 0) and nodes, and the hash a diagnosis pins. */
    record RunnableSet(String name, List<OperationGraph.Node> nodes, List<List<Integer>> paths, String hash) {
    }

    private final Jdbi jdbi;
    private final DiagnosisStore repository;
    private final Clock clock;
    private final int maxPaths;
    /** Counts changes to the library, so that cached triggers are read again after one. */
    private final java.util.concurrent.atomic.AtomicLong version = new java.util.concurrent.atomic.AtomicLong();
    private volatile TriggerList triggers;

    DiagnosisCatalog(Jdbi jdbi, DiagnosisStore repository, Clock clock, int maxPaths) {
        this.jdbi = jdbi;
        this.repository = repository;
        this.clock = clock;
        this.maxPaths = maxPaths;
    }

    /** Checks and stores a document under its name (a user's: a later start keeps it over a built-in one). */
    public DiagnosisObject put(String kind, String name, KubeDocument document) {
        return put(kind, name, document, false);
    }

    private DiagnosisObject put(String kind, String name, KubeDocument document, boolean builtin) {
        if (document.kind() != null && !document.kind().equals(kind)) {
            throw DomainException.invalid("kind", "is " + document.kind() + ", expected " + kind);
        }
        Map<String, Object> metadata = new LinkedHashMap<>(document.metadata() == null ? Map.of() : document.metadata());
        if (metadata.get("name") != null && !name.equals(metadata.get("name"))) {
            throw DomainException.invalid("metadata.name", "is '" + metadata.get("name") + "' but the path names '" + name + "'");
        }
        metadata.put("name", name);
        KubeDocument named = new KubeDocument(document.apiVersion() == null ? "diagnosis.kubediag.org/v1" : document.apiVersion(), kind,
                metadata, document.spec());
        Map<String, Object> tree = tree(named);
        DiagnosisObject stored = jdbi.inTransaction(h -> {
            List<List<Integer>> paths = null;
            try {
                switch (kind) {
                    case OPERATION -> DiagnosisDocuments.operation(tree);
                    case OPERATION_SET -> paths = paths(DiagnosisDocuments.operationSet(tree).adjacencyList(), operationNames(h));
                    case TRIGGER -> checkTrigger(TriggerDocuments.trigger(tree), h);
                    default -> throw new IllegalArgumentException(kind);
                }
            } catch (DocumentException e) {
                throw DomainException.invalid(e.problems().stream().map(p -> new FieldError(p.field(), p.message())).toList());
            }
            // A replaced document keeps its trigger's last schedule time: putObject leaves that column alone.
            repository.putObject(h, new DiagnosisStore.ObjectRow(kind, name, named, paths, builtin, null, OffsetDateTime.now(clock)));
            return info(repository.object(h, kind, name).orElseThrow());
        });
        version.incrementAndGet();
        return stored;
    }

    private List<List<Integer>> paths(List<OperationGraph.Node> nodes, Set<String> operations) {
        try {
            return OperationGraph.paths(nodes, operations, maxPaths).stream().map(p -> p.subList(1, p.size())).toList();
        } catch (GraphException e) {
            throw DomainException.invalid("spec.adjacencyList", e.getMessage());
        }
    }

    private void checkTrigger(TriggerDocuments.Trigger trigger, org.jdbi.v3.core.Handle h) {
        if (repository.object(h, OPERATION_SET, trigger.operationSet()).isEmpty()) {
            throw DomainException.invalid("spec.operationSet", "'" + trigger.operationSet() + "' is not an OperationSet");
        }
        if (trigger.cron() != null) {
            try {
                CronSchedule.parse(trigger.cron().schedule());
            } catch (IllegalArgumentException e) {
                throw DomainException.invalid("spec.sourceTemplate.cronTemplate.schedule", e.getMessage());
            }
            if (trigger.cron().timeZone() != null) {
                try {
                    ZoneId.of(trigger.cron().timeZone());
                } catch (RuntimeException e) {
                    throw DomainException.invalid("spec.sourceTemplate.cronTemplate.timeZone", "'" + trigger.cron().timeZone()
                            + "' is not a time zone (e.g. UTC, Asia/Shanghai)");
                }
            }
        }
    }

    private Set<String> operationNames(org.jdbi.v3.core.Handle h) {
        Set<String> names = new HashSet<>();
        repository.objects(h, OPERATION).forEach(o -> names.add(o.name()));
        return names;
    }

    public DiagnosisObject get(String kind, String name) {
        return jdbi.withHandle(h -> repository.object(h, kind, name)).map(DiagnosisCatalog::info)
                .orElseThrow(() -> DomainException.notFound(kind, name));
    }

    public List<DiagnosisObject.Summary> list(String kind) {
        return jdbi.withHandle(h -> repository.objects(h, kind)).stream().map(o -> new DiagnosisObject.Summary(o.kind(), o.name(),
                o.builtin(), detail(o), o.updatedAt())).toList();
    }

    /** Deletes a document; an Operation still named by an OperationSet, or a set a trigger uses, is refused. */
    public void delete(String kind, String name) {
        jdbi.useTransaction(h -> {
            if (kind.equals(OPERATION)) {
                List<String> sets = repository.setsUsing(h, name);
                if (!sets.isEmpty()) {
                    throw DomainException.conflict("operation_in_use", "operation " + name + " is used by OperationSet(s) " + sets);
                }
            }
            if (kind.equals(OPERATION_SET)) {
                List<String> triggers = repository.objects(h, TRIGGER).stream()
                        .filter(t -> name.equals(t.document().spec() == null ? null : t.document().spec().get("operationSet")))
                        .map(DiagnosisStore.ObjectRow::name).toList();
                if (!triggers.isEmpty()) {
                    throw DomainException.conflict("operation_set_in_use", "operation set " + name + " is used by Trigger(s) " + triggers);
                }
            }
            if (!repository.deleteObject(h, kind, name)) {
                throw DomainException.notFound(kind, name);
            }
        });
        version.incrementAndGet();
    }

    /** An Operation as the runner needs it, or empty when it no longer exists. */
    Optional<Operation> operation(String name) {
        return jdbi.withHandle(h -> repository.object(h, OPERATION, name)).map(o -> DiagnosisDocuments.operation(tree(o.document())));
    }

    Optional<RunnableSet> operationSet(String name) {
        return jdbi.withHandle(h -> repository.object(h, OPERATION_SET, name)).map(o -> {
            List<OperationGraph.Node> nodes = DiagnosisDocuments.operationSet(tree(o.document())).adjacencyList();
            return new RunnableSet(o.name(), nodes, o.paths(), Hashing.sha256(Sql.toJson(o.document().spec())));
        });
    }

    /** Every trigger, in name order (the first matching one wins); read again only after a change. */
    List<TriggerDocuments.Trigger> triggers() {
        TriggerList cached = triggers;
        if (cached != null && cached.version() == version.get()) {
            return cached.triggers();
        }
        long at = version.get();
        List<TriggerDocuments.Trigger> out = new ArrayList<>();
        for (DiagnosisStore.ObjectRow row : jdbi.withHandle(h -> repository.objects(h, TRIGGER))) {
            out.add(TriggerDocuments.trigger(tree(row.document())));
        }
        triggers = new TriggerList(at, List.copyOf(out));
        return triggers.triggers();
    }

    private record TriggerList(long version, List<TriggerDocuments.Trigger> triggers) {
    }

    Map<String, OffsetDateTime> triggerTimes() {
        Map<String, OffsetDateTime> out = new LinkedHashMap<>();
        jdbi.withHandle(h -> repository.objects(h, TRIGGER)).forEach(t -> out.put(t.name(),
                t.lastScheduleAt() != null ? t.lastScheduleAt() : t.updatedAt()));
        return out;
    }

    void scheduled(String trigger, OffsetDateTime at) {
        jdbi.useHandle(h -> repository.setLastSchedule(h, trigger, at));
    }

    /**
     * Loads the built-in library: a document not stored yet, or stored and still built in, is (re)written; one a user
     * applied under the same name is kept. Operations first, then sets, then triggers, as they depend.
     */
    public int loadLibrary() {
        List<KubeDocument> documents = new ArrayList<>();
        try (InputStream in = DiagnosisCatalog.class.getResourceAsStream(LIBRARY)) {
            if (in == null) {
                throw new IllegalStateException(LIBRARY + " is missing from the server's jar");
            }
            try (var parser = Json.yaml().getFactory().createParser(in)) {
                var values = Json.yaml().readValues(parser, KubeDocument.class);
                while (values.hasNext()) {
                    documents.add(values.next());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the built-in diagnosis library", e);
        }
        int loaded = 0;
        for (String kind : List.of(OPERATION, OPERATION_SET, TRIGGER)) {
            for (KubeDocument document : documents) {
                if (!kind.equals(document.kind())) {
                    continue;
                }
                String name = String.valueOf(document.metadata().get("name"));
                boolean userOwned = jdbi.withHandle(h -> repository.object(h, kind, name)).map(o -> !o.builtin()).orElse(false);
                if (!userOwned) {
                    put(kind, name, document, true);
                    loaded++;
                }
            }
        }
        return loaded;
    }

    static Map<String, Object> tree(KubeDocument document) {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("apiVersion", document.apiVersion());
        tree.put("kind", document.kind());
        tree.put("metadata", document.metadata());
        tree.put("spec", document.spec());
        return tree;
    }

    private static String detail(DiagnosisStore.ObjectRow o) {
        Map<String, Object> spec = o.document().spec() == null ? Map.of() : o.document().spec();
        return switch (o.kind()) {
            case OPERATION -> spec.get("processor") instanceof Map<?, ?> p ? String.join(",", p.keySet().stream()
                    .map(String::valueOf).filter(k -> !k.equals("timeoutSeconds")).toList()) : "";
            case OPERATION_SET -> (o.paths() == null ? 0 : o.paths().size()) + " path(s)";
            default -> "set " + spec.get("operationSet") + (spec.get("sourceTemplate") instanceof Map<?, ?> s ? ", " + s.keySet() : "");
        };
    }

    private static DiagnosisObject info(DiagnosisStore.ObjectRow o) {
        return new DiagnosisObject(o.kind(), o.name(), o.builtin(), o.document(), o.paths(), o.lastScheduleAt(), o.updatedAt());
    }
}

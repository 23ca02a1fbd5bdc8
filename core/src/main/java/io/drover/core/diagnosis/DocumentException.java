package io.drover.core.diagnosis;

import java.util.List;

/** A diagnosis document (Operation, OperationSet, Trigger, Diagnosis) that is not valid: each problem names its field. */
public final class DocumentException extends RuntimeException {
    /** One problem: the field's path in the document ({@code spec.processor.httpServer.port}) and what is wrong. */
    public record Problem(String field, String message) {
        @Override
        public String toString() {
            return field + ": " + message;
        }
    }

    private final transient List<Problem> problems;

    public DocumentException(List<Problem> problems) {
        super(String.join("; ", problems.stream().map(Problem::toString).toList()), null, false, false);
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return problems;
    }
}

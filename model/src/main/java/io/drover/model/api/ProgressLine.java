package io.drover.model.api;

/**
 * One line of a long request's progress stream (newline-delimited JSON): exactly one of {@code progress} (how far the
 * work is), {@code result} (the answer, the last line) or {@code error} (the problem that ended it, the last line).
 */
public record ProgressLine<P, R>(P progress, R result, Problem error) {

    public static <P, R> ProgressLine<P, R> progress(P progress) {
        return new ProgressLine<>(progress, null, null);
    }

    public static <P, R> ProgressLine<P, R> result(R result) {
        return new ProgressLine<>(null, result, null);
    }
}

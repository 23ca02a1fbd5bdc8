package io.drover.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Go's regular expressions (re2j), bounded in size before they are compiled. */
class Re2RegexTest {
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = ';', value = {
            "abc; 3",
            "a{3}; 3",
            "(ab){10}; 20",
            "(a{10}){10}b; 101",
            "[[:digit:]]{4}-[0-9]{2}; 7",
            "x|y{5}|z; 7",
            "\\d{2,8}; 8",
            "a{,3}; 5",
            "\\Qa{99}\\E; 5"})
    void theSizeBoundCountsExpandedRepetitions(String text, long size) {
        assertThat(Re2Regex.size(text)).isEqualTo(size);
    }

    @Test
    void largeExpressionsAreRefusedBeforeCompiling() {
        assertThatThrownBy(() -> Re2Regex.compile("(a{1000}){1000}", "labels.x")).isInstanceOf(TargetException.class)
                .hasMessageContaining("labels.x '(a{1000}){1000}' is too large");
        assertThatThrownBy(() -> Re2Regex.compile("a".repeat(BoundedRegex.MAX_CHARS + 1), "x")).hasMessageContaining("longer than 8192");
        assertThatThrownBy(() -> Re2Regex.compile("(".repeat(51) + ")".repeat(51), "x")).hasMessageContaining("nests groups deeper");
        assertThat(Re2Regex.compile("(a{100}){100}", "x").find("a".repeat(10_000))).isTrue();
    }

    @Test
    void matchingIsLinearWhereBacktrackingExplodes() {
        Re2Regex evil = Re2Regex.compile("^(a+)+$", "x");
        long started = System.nanoTime();
        assertThat(evil.find("a".repeat(100_000) + "!")).isFalse();
        assertThat((System.nanoTime() - started) / 1e9).isLessThan(5);
        assertThat(evil.find("aaaa")).isTrue();
    }

    @Test
    void emptyRepetitionsCountAndNeverOverflowAMatchersStack() throws Exception {
        assertThat(Re2Regex.size("((){50}){50}")).as("an empty group still costs a step").isGreaterThanOrEqualTo(2500);
        java.util.List<String> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (String evil : java.util.List.of("((){100}){100}", "((|){1000}){100}", "((a?){100}){100}", "((((a?){10}){10}){10}){10}",
                "((a*){100}){30}", "(($){30}){300}", "(a?){1000}")) {
            // a thread with a small stack, as a busy server thread has little of its stack left
            Thread thread = new Thread(null, () -> {
                try {
                    Re2Regex regex = Re2Regex.compile(evil, "labels.x");
                    outcomes.add(evil + " matched " + regex.find("") + " " + regex.find("xyz"));
                } catch (TargetException e) {
                    outcomes.add(evil + " refused " + e.getMessage());
                } catch (Throwable e) {
                    outcomes.add(evil + " FAILED " + e);
                }
            }, "small-stack", 256 << 10);
            thread.start();
            thread.join();
        }
        assertThat(outcomes).hasSize(7).noneMatch(o -> o.contains("FAILED"));
        assertThat(outcomes).anyMatch(o -> o.startsWith("((a?){100}){100} refused") && o.contains("labels.x"));
    }
}

package io.drover.core.match;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of the target parser, which reads what an operator or the API sends and, on an agent, what a
 * publish carries: expressions built from compound syntax (words, operators, parentheses, prefixes, nesting far
 * past the limit) and random text. Each parses or is refused with a {@link TargetException}, never anything else,
 * and whatever parses matches without failing, on a thread with the agent's 256 KiB stack.
 */
class TargetFuzzTest {
    static final int ITERATIONS = Integer.getInteger("drover.fuzz.iterations", 100_000);
    static final long SEED = Long.getLong("drover.fuzz.seed", 20261124L);
    static final List<String> WORDS = List.of("and", "or", "not", "(", ")", "( (", ") )", "web-*", "db-[0-9]", "G@os:Debian",
            "G@roles:web:*", "P@os:(Deb|Ub).*", "E@web-\\d+", "L@web-1,web-2", "S@10.0.0.0/8", "S@999.1.1.1", "N@web", "N@nope",
            "X@y", "G@", "@", "*", "?", "[", "]", "[!a-z]", "", " ", "\u0000", "\u202e", "é", "G@a:b:c:d:e:f");
    static final Map<String, String> NODEGROUPS = Map.of("web", "G@roles:web or N@db", "db", "L@db-1,db-2 and not N@web2",
            "web2", "web-2");

    String expression(Random random) {
        if (random.nextInt(10) == 0) {
            char[] chars = new char[random.nextInt(200)];
            for (int i = 0; i < chars.length; i++) {
                chars[i] = (char) random.nextInt(random.nextBoolean() ? 128 : 0x3000);
            }
            return new String(chars);
        }
        StringBuilder out = new StringBuilder();
        int words = random.nextInt(random.nextInt(20) == 0 ? 5_000 : 30);
        for (int i = 0; i < words; i++) {
            if (random.nextInt(50) == 0) {
                int depth = random.nextInt(200);
                out.append("( ".repeat(depth)).append("web-1").append(" )".repeat(random.nextInt(depth + 2))).append(' ');
            } else {
                out.append(WORDS.get(random.nextInt(WORDS.size()))).append(' ');
            }
        }
        return out.toString();
    }

    @Test
    void anyExpressionParsesOrIsRefusedWithATargetException() throws Exception {
        Throwable[] failure = new Throwable[1];
        int[] parsed = new int[1];
        Thread small = new Thread(null, () -> {
            Random random = new Random(SEED);
            MinionView minion = new MinionView("web-1", Map.of("os", "Debian", "roles", List.of("web", "db")));
            for (int i = 0; i < ITERATIONS && failure[0] == null; i++) {
                String type = random.nextInt(5) == 0 ? TargetExpression.TYPES.get(random.nextInt(TargetExpression.TYPES.size())) : "compound";
                String text = expression(random);
                try {
                    TargetExpression target = TargetExpression.parse(type, text, NODEGROUPS);
                    target.matches(minion);
                    parsed[0]++;
                } catch (TargetException e) {
                    // refused with a reason: fine
                } catch (RuntimeException | Error e) {
                    failure[0] = new AssertionError("input " + i + " of seed " + SEED + " (" + type + ", "
                            + text.length() + " chars) broke the parser", e);
                }
            }
        }, "target-fuzz", 256 * 1024);
        small.start();
        small.join();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
        assertThat(parsed[0]).as("some inputs parse").isBetween(1, ITERATIONS - 1);
    }
}

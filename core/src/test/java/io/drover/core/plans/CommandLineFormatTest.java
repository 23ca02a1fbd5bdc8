package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Application command-line DSL, word for word. */
class CommandLineFormatTest {
    @Test
    void withoutOtherArgumentsTheCommandLineIsTakenAsItIs() {
        assertThat(CommandLineFormat.format("ls ${HOME} {x} }", List.of(), Map.of())).isEqualTo("ls ${HOME} {x} }");
    }

    @Test
    void placeholdersTakeQuotedWordsAndTheRestIsAppended() {
        Map<String, Object> keywords = new LinkedHashMap<>();
        keywords.put("dest", "/srv/a b");
        keywords.put("force", true);
        keywords.put("none", null);
        assertThat(CommandLineFormat.format("--to {dest} {1} {1}", Arrays.asList("first", "it's", 3, List.of(1, "x")), keywords))
                .isEqualTo("--to '/srv/a b' 'it'\\''s' 'it'\\''s' 'first' '3' '[1,\"x\"]' '--force=true' '--none='");
    }

    @Test
    void doubledBracesAreLiteral() {
        assertThat(CommandLineFormat.format("{{a}} ${{HOME}} {0}}}", List.of("v"), Map.of())).isEqualTo("{a} ${HOME} 'v'}");
    }

    @Test
    void valuesNeverBecomeShellSyntax() {
        String evil = "$(touch /tmp/x); `id` | rm -rf / \n'\"\\";
        String line = CommandLineFormat.format("{0}", List.of(evil), Map.of());
        assertThat(line).startsWith("'").endsWith("'").isEqualTo(CommandLineFormat.quote(evil));
    }

    @Test
    void wrongPlaceholdersAreRefusedWith1() {
        for (String[] wrong : new String[][] {
                {"{1}", "{1} names positional argument 1, but the call has 1 after the command line"},
                {"{who}", "{who} names the keyword argument who, which the call does not give"},
                {"{ 0 }", "{ 0 } is neither {N} nor {name}"},
                {"{-1}", "{-1} is neither"},
                {"{0", "a '{' at character 1 is never closed"},
                {"a}", "a single '}' at character 2"},
                {"{99999999999}", "is neither"}}) {
            assertThatThrownBy(() -> CommandLineFormat.format(wrong[0], List.of("x"), Map.of())).as(wrong[0])
                    .isInstanceOf(PlanException.class).hasMessageContaining(wrong[1])
                    .satisfies(e -> assertThat(((PlanException) e).code()).isEqualTo(PlanErrorCode.GENERIC));
        }
    }
}

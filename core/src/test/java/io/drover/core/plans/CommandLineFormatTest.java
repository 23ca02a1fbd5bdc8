package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Application command-line DSL, word for word, and what the host's /bin/sh makes of it. */
class CommandLineFormatTest {
    @Test
    void withoutOtherArgumentsTheCommandLineIsTakenAsItIs() {
        assertThat(CommandLineFormat.format("ls ${HOME} {x} }", List.of(), Map.of()))
                .isEqualTo(new CommandLineFormat.CommandLine("ls ${HOME} {x} }", List.of()));
    }

    @Test
    void placeholdersReferToParametersAndTheRestIsAppended() throws Exception {
        Map<String, Object> keywords = new LinkedHashMap<>();
        keywords.put("dest", "/srv/a b");
        keywords.put("force", true);
        keywords.put("none", null);
        CommandLineFormat.CommandLine line = CommandLineFormat.format("--to {dest} {1} {1}",
                Arrays.asList("first", "it's", 3, List.of(1, "x")), keywords);
        assertThat(line.text()).isEqualTo("--to \"${1}\" \"${2}\" \"${2}\" \"${3}\" \"${4}\" \"${5}\" \"${6}\" \"${7}\"");
        assertThat(line.words()).containsExactly("/srv/a b", "it's", "first", "3", "[1,\"x\"]", "--force=true", "--none=");
        assertThat(sh(line)).isEqualTo("[--to][/srv/a b][it's][it's][first][3][[1,\"x\"]][--force=true][--none=]");
    }

    @Test
    void doubledBracesAreLiteral() {
        assertThat(CommandLineFormat.format("{{a}} ${{HOME}} {0}}}", List.of("v"), Map.of()).text()).isEqualTo("{a} ${HOME} \"${1}\"}");
    }

    @Test
    void valuesNeverBecomeShellSyntaxWhereverThePlaceholderIs() throws Exception {
        // no blank in it: an unquoted $(…) the author wrote would split it, which is the author's shell, not the value's
        String evil = "$(echo${IFS}PWNED)`echo${IFS}PWNED`;echo${IFS}PWNED|'\"\\*";
        for (String commandline : List.of("{0}", "\"{0}\"", "\"x{0}y\"", "\"$(printf %s {0})\"", "$(printf %s {0})",
                "`printf %s {0}`", "\"${{UNSET:-{0}}}\"", "\"$(printf %s \"$((1+2))\" {0})\"", "\"$(printf %s \"a\")\"{0}",
                "# it's a comment {0}\nf {0}", "<<EOF\n{0}\nEOF")) {
            assertThat(sh(CommandLineFormat.format(commandline, List.of(evil), Map.of()))).as(commandline).contains(evil);
        }
        assertThat(sh(CommandLineFormat.format("\"x{0}y\" {0}", List.of("a  b*\nc"), Map.of()))).isEqualTo("[xa  b*\ncy][a  b*\nc]");
        assertThatThrownBy(() -> CommandLineFormat.format("x # {0}", List.of("a"), Map.of("k", 1))).as("appended after a comment")
                .hasMessageContaining("ends in a # comment, which would swallow the arguments appended after it");
    }

    @Test
    void placeholdersTheShellWouldNotExpandAreRefused() {
        for (String[] wrong : new String[][] {
                {"'{0}'", "{0} at character 2 is inside single quotes"},
                {"echo 'a b {0} c'", "is inside single quotes"},
                {"$'x{0}'", "is inside single quotes"},
                {"\\{0}", "{0} at character 2 follows a backslash"},
                {"\"\\{0}\"", "follows a backslash"},
                {"'unclosed", "positional argument 0, appended, is inside single quotes"}}) {
            assertThatThrownBy(() -> CommandLineFormat.format(wrong[0], List.of("x"), Map.of())).as(wrong[0])
                    .isInstanceOf(PlanException.class).hasMessageContaining(wrong[1]);
        }
        assertThat(CommandLineFormat.format("\"it's {0}\" 'a \"b' {0}", List.of("x"), Map.of()).text()).as("quotes within quotes")
                .isEqualTo("\"it's ${1}\" 'a \"b' \"${1}\"");
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

    /** What the host's /bin/sh runs: each argument of {@code printf} in brackets (and a here-document's text). */
    private static String sh(CommandLineFormat.CommandLine line) throws Exception {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "f() { printf '[%s]' \"$@\"; cat; }; f " + line.text(), "sh"));
        command.addAll(line.words());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
                new java.io.File("/dev/null"))).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return out;
    }
}

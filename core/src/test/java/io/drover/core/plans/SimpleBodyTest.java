package io.drover.core.plans;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.plans.SimpleBody.Call;
import io.drover.core.plans.SimpleBody.Literal;
import io.drover.core.plans.SimpleBody.Parameter;
import io.drover.core.plans.SimpleBody.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which Bodies run without python3, and what they mean. */
class SimpleBodyTest {
    static Statement parsed(String body) {
        return SimpleBody.parse(body).orElseThrow(() -> new AssertionError("not simple: " + body));
    }

    @Test
    void theReferencePlansBodiesAreSimple() {
        assertThat(parsed("return deploy(args.appName).stdout\n")).isEqualTo(new Statement(
                new Call("deploy", null, List.of(new Parameter("appName")), Map.of(), "stdout"), true));
        assertThat(parsed("return runCommand()")).isEqualTo(new Statement(new Call("runCommand", null, List.of(), Map.of(), null), true));
    }

    @Test
    void literalsParametersFunctionsAndKeywords() {
        assertThat(parsed("  \n# a comment\nreturn app.install('x', \"y z\", 42, -7, True, False, None, args['a b'], mode=args.m, n=3,)\n\n"))
                .isEqualTo(new Statement(new Call("app", "install", List.of(new Literal("x"), new Literal("y z"), new Literal(42L),
                        new Literal(-7L), new Literal(true), new Literal(false), new Literal(null), new Parameter("a b")),
                        Map.of("mode", new Parameter("m"), "n", new Literal(3L)), null), true));
        assertThat(parsed("deploy()")).isEqualTo(new Statement(new Call("deploy", null, List.of(), Map.of(), null), false));
        assertThat(parsed("return")).isEqualTo(new Statement(new Literal(null), true));
        assertThat(parsed("")).isEqualTo(new Statement(new Literal(null), false));
        assertThat(parsed("return 'done'")).isEqualTo(new Statement(new Literal("done"), true));
        assertThat(parsed("return args.port")).isEqualTo(new Statement(new Parameter("port"), true));
        assertThat(parsed("return\ts ( 1 ) . exitCode".replace(" . ", "."))).isEqualTo(new Statement(
                new Call("s", null, List.of(new Literal(1L)), Map.of(), "exitCode"), true));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "x = 1\nreturn x", "return s()\nreturn t()", "  return s()", "return s();", "return s() # trailing comment",
            "return s(t())", "return s(1 + 2)", "return s('a\\'b')", "return s('''x''')", "return s(u'x')", "return s(1.5)",
            "return s(007)", "return s(1_000)", "return s(x)", "return s(args)", "return api.version()", "return s().other",
            "return s().stdout.strip()", "return s(a=1, a=2)", "return s(a=1, 2)", "return s(", "return s)", "return 'open",
            "return [s()]", "return s() if args.x else t()", "return print('x')", "return s(**{'a': 1})", "return s(*[1])",
            "return s.f.g()", "return s(a==1)", "return ünïcode()", "return s(99999999999999999999)", "return s() s()", "return -x"})
    void anythingElseRunsInPython(String body) {
        assertThat(SimpleBody.parse(body)).as(body).isEmpty();
    }
}

package io.drover.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class GlobTest {

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource({
            "drover/inventory/*, drover/inventory/host/created, true",
            "drover/inventory/*, drover/agent/x/heartbeat, false",
            "*, anything/at/all, true",
            "salt/job/*/ret/*, salt/job/20260101/ret/web-1, true",
            "salt/job/*/ret/*, salt/job/20260101/new, false",
            "web-?, web-1, true",
            "web-?, web-10, false",
            "web-[12], web-2, true",
            "web-[12], web-3, false",
            "web-[!12], web-3, true",
            "web-[0-9], web-7, true",
            "a.b, a.b, true",
            "a.b, axb, false",
            "(x), (x), true",
            "[unclosed, [unclosed, true",
            "[^a], ^, true",
            "[^a], b, false",
            "[]]x, ]x, true",
            "x[a-], -, false",
            "x[a-], x-, true",
            "[a&&b], &, true",
            "*.example.*, web.example.com, true",
            "*a*b, aaab, true",
            "*a*b, aaba, false",
            "**, '', true",
            "a*, '', false",
    })
    void matches(String glob, String candidate, boolean expected) {
        assertThat(Glob.compile(glob).matches(candidate)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} may match a string starting with {1}: {2}")
    @CsvSource({
            "*, salt/job/, true",
            "salt/job/*/ret/*, salt/job/, true",
            "salt/*, salt/job/, true",
            "salt/job/2026*, salt/job/, true",
            "salt/job/, salt/job/, true",
            "salt, salt/job/, false",
            "salt/job/x, salt/job/xy, false",
            "drover/inventory/*, salt/job/, false",
            "drover/*, salt/job/, false",
            "s?lt/*, salt/job/, true",
            "s[a-c]lt/*, salt/job/, true",
            "s[!a]lt/*, salt/job/, false",
            "*/ret/*, salt/job/, true",
            "*x, salt/job/, true",
            "sa**lt/j*b/*, salt/job/, true",
            "a*b*c, abd, true",
            "a?, abc, false",
            "anything, '', true",
    })
    void mayMatchAStringStartingWith(String glob, String prefix, boolean expected) {
        assertThat(Glob.compile(glob).mayMatchStartingWith(prefix)).isEqualTo(expected);
    }

    @Test
    void mayMatchStartingWithAgreesWithMatchingOnEveryPrefixOfASample() {
        String tag = "salt/job/20261127004200000000/ret/web-1";
        for (String glob : new String[] {"*", "salt/job/*/ret/web-?", "salt/*/ret/*", "*/ret/*", "salt/job/*/new", "x*"}) {
            boolean matches = Glob.compile(glob).matches(tag);
            for (int end = 0; end <= tag.length(); end++) {
                // a glob matching the whole tag may match a string starting with any of its prefixes
                if (matches) {
                    assertThat(Glob.compile(glob).mayMatchStartingWith(tag.substring(0, end))).as(glob + " / " + end).isTrue();
                }
            }
        }
        assertThat(Glob.compile("*a".repeat(2_000)).mayMatchStartingWith("b".repeat(2_000))).isTrue();
    }

    @Test
    void rejectsEmptyGlobAndNeverMatchesNull() {
        assertThatThrownBy(() -> Glob.compile("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Glob.compile("*").matches(null)).isFalse();
    }

    @Test
    void aGlobThatWouldBacktrackExponentiallyAsARegexMatchesInLinearSteps() {
        String glob = "*a".repeat(40) + "b";
        assertThat(Glob.compile(glob).matches("a".repeat(10_000))).isFalse();
        assertThat(Glob.compile(glob).matches("a".repeat(10_000) + "b")).isTrue();
    }
}

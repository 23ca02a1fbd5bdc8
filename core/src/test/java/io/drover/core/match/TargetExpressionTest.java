package io.drover.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetExpressionTest {
    static final MinionView WEB1 = new MinionView("web-1", Map.of("os", "Debian", "kernel", "Linux",
            "roles", List.of("web", "edge"), "num_cpus", 4, "virtual", false,
            "ipv4", List.of("127.0.0.1", "10.0.1.1"), "locale", Map.of("lang", "en_US", "tz", "UTC"),
            "url", "http://a:b"));
    static final MinionView DB1 = new MinionView("db-1", Map.of("os", "CentOS", "kernel", "Linux",
            "roles", List.of("db"), "num_cpus", 16, "ipv4", List.of("10.0.2.1"), "drover_innerip", "192.168.7.9"));
    static final MinionView BARE = new MinionView("bare", Map.of());
    static final Map<String, String> GROUPS = Map.of("web", "G@roles:web", "webdb", "N@web or L@db-1",
            "loop", "N@loop2", "loop2", "N@loop");

    static List<String> matching(String type, Object tgt) {
        TargetExpression t = TargetExpression.parse(type, tgt, GROUPS);
        return List.of(WEB1, DB1, BARE).stream().filter(t::matches).map(MinionView::id).toList();
    }

    @Test
    void idMatchers() {
        assertThat(matching(null, "web-*")).containsExactly("web-1");
        assertThat(matching("glob", "*")).containsExactly("web-1", "db-1", "bare");
        assertThat(matching("pcre", "(web|db)-\\d")).containsExactly("web-1", "db-1");
        assertThat(matching("pcre", "eb")).as("anchored at the start").isEmpty();
        assertThat(matching("list", "db-1, bare,,")).containsExactly("db-1", "bare");
        assertThat(matching("list", List.of("web-1"))).containsExactly("web-1");
    }

    @Test
    void grainsMatchLikeSaltSubdictMatch() {
        assertThat(matching("grain", "os:Debian")).containsExactly("web-1");
        assertThat(matching("grain", "os:debian")).as("case-insensitive").containsExactly("web-1");
        assertThat(matching("grain", "kernel:Lin*")).containsExactly("web-1", "db-1");
        assertThat(matching("grain", "roles:db")).as("any element of a list").containsExactly("db-1");
        assertThat(matching("grain", "num_cpus:16")).containsExactly("db-1");
        assertThat(matching("grain", "virtual:false")).containsExactly("web-1");
        assertThat(matching("grain", "locale:tz:UTC")).as("nested").containsExactly("web-1");
        assertThat(matching("grain", "locale:tz")).as("a map matches its keys").containsExactly("web-1");
        assertThat(matching("grain", "url:http://a:b")).as("the value may hold the delimiter").containsExactly("web-1");
        assertThat(matching("grain", "missing:*")).isEmpty();
        assertThat(matching("grain_pcre", "os:(debian|centos)$")).containsExactly("web-1", "db-1");
        assertThat(matching("grain_pcre", "num_cpus:1\\d")).containsExactly("db-1");
    }

    @Test
    void ipcidrMatchesAnyAddress() {
        assertThat(matching("ipcidr", "10.0.0.0/16")).containsExactly("web-1", "db-1");
        assertThat(matching("ipcidr", "10.0.1.1")).containsExactly("web-1");
        assertThat(matching("ipcidr", "10.0.1.0/32")).isEmpty();
        assertThat(matching("ipcidr", "10.0.1.1/31")).as("host bits ignored").containsExactly("web-1");
        assertThat(matching("ipcidr", "0.0.0.0/0")).containsExactly("web-1", "db-1");
        assertThat(matching("ipcidr", "192.168.7.0/24")).as("the inventory address grain counts").containsExactly("db-1");
    }

    @Test
    void compoundHonoursPrecedenceParenthesesAndNot() {
        assertThat(matching("compound", "G@os:Debian and web-*")).containsExactly("web-1");
        assertThat(matching("compound", "bare or G@os:CentOS and S@10.0.2.0/24")).containsExactly("db-1", "bare");
        assertThat(matching("compound", "(bare or G@os:CentOS) and S@10.0.2.0/24")).containsExactly("db-1");
        assertThat(matching("compound", "not G@kernel:Linux")).containsExactly("bare");
        assertThat(matching("compound", "* not db-*")).as("not after a match implies and").containsExactly("web-1", "bare");
        assertThat(matching("compound", "not not web-1")).containsExactly("web-1");
        assertThat(matching("compound", "E@^d and (L@db-1,web-1 or P@os:^deb)")).containsExactly("db-1");
        assertThat(matching("compound", "((web-1))")).containsExactly("web-1");
    }

    @Test
    void nodegroupsExpandRecursively() {
        assertThat(matching("nodegroup", "web")).containsExactly("web-1");
        assertThat(matching("nodegroup", "webdb")).containsExactly("web-1", "db-1");
        assertThat(matching("compound", "N@webdb and not N@web")).containsExactly("db-1");
        String expanded = TargetExpression.expandNodegroups("compound", "(N@webdb) and not N@web", GROUPS);
        assertThat(expanded).isEqualTo("(( ( G@roles:web ) or L@db-1 )) and not ( G@roles:web )");
        assertThat(matching("compound", expanded)).containsExactly("db-1");
        assertThat(TargetExpression.expandNodegroups("nodegroup", "web", GROUPS)).isEqualTo("( G@roles:web )");
        assertThatThrownBy(() -> TargetExpression.expandNodegroups("nodegroup", "loop", GROUPS)).isInstanceOf(TargetException.class);
    }

    @Test
    void malformedTargetsNameTheProblem() {
        assertThatThrownBy(() -> matching("nodegroup", "loop")).isInstanceOf(TargetException.class)
                .hasMessageContaining("nodegroup 'loop' refers to itself");
        assertThatThrownBy(() -> matching("nodegroup", "nope")).hasMessage("unknown nodegroup 'nope' (known: loop, loop2, web, webdb)");
        assertThatThrownBy(() -> matching("compound", "G@os:Debian and (")).hasMessage(
                "compound target 'G@os:Debian and (': it ends where a match is expected");
        assertThatThrownBy(() -> matching("compound", "(web-1 or db-1")).hasMessageContaining("unbalanced parenthesis");
        assertThatThrownBy(() -> matching("compound", "web-1)")).hasMessageContaining("unbalanced parenthesis");
        assertThatThrownBy(() -> matching("compound", "web-1 db-1")).hasMessageContaining("'db-1' follows a complete expression");
        assertThatThrownBy(() -> matching("compound", "and web-1")).hasMessageContaining("'and' where a match is expected");
        assertThatThrownBy(() -> matching("compound", "I@role:x")).hasMessageContaining("'I@' is not supported");
        assertThatThrownBy(() -> matching("ipcidr", "10.0.0.0/33")).hasMessageContaining("invalid CIDR '10.0.0.0/33'");
        assertThatThrownBy(() -> matching("ipcidr", "10.0.0/8")).hasMessageContaining("invalid CIDR");
        assertThatThrownBy(() -> matching("ipcidr", "256.0.0.1")).hasMessageContaining("invalid CIDR");
        assertThatThrownBy(() -> matching("pcre", "web-[")).hasMessageContaining("pcre target 'web-[' is not a regular expression");
        assertThatThrownBy(() -> matching("grain", "os")).hasMessage("grain target 'os' is not key:value");
        assertThatThrownBy(() -> matching("grain", "")).hasMessage("grain target is empty");
        assertThatThrownBy(() -> matching("list", " , ")).hasMessage("list target names no id");
        assertThatThrownBy(() -> matching("range", "x")).hasMessageContaining("unknown target type 'range' (glob, pcre, list");
    }

    /** Runs {@code body} on a thread with an agent's 256 KiB stack and rethrows what it threw. */
    static void onSmallStack(Runnable body) throws Throwable {
        Throwable[] thrown = new Throwable[1];
        Thread thread = new Thread(null, () -> {
            try {
                body.run();
            } catch (Throwable t) {
                thrown[0] = t;
            }
        }, "small-stack", 256 * 1024);
        thread.start();
        thread.join();
        if (thrown[0] != null) {
            throw thrown[0];
        }
    }

    @Test
    void nestingUpToTheLimitParsesAndDeeperIsRefusedOnASmallStack() throws Throwable {
        int max = TargetExpression.MAX_DEPTH;
        onSmallStack(() -> {
            assertThat(matching("compound", "( ".repeat(max) + "web-1" + " )".repeat(max))).containsExactly("web-1");
            assertThat(matching("compound", "not ".repeat(max) + "web-1")).as("an even number of nots").containsExactly("web-1");
            for (int depth : new int[] {max + 1, 500, 5_000, 100_000}) {
                assertThatThrownBy(() -> matching("compound", "( ".repeat(depth) + "web-1" + " )".repeat(depth)))
                        .isInstanceOf(TargetException.class).hasMessageContaining("nested deeper than 50 levels");
                assertThatThrownBy(() -> matching("compound", "not ".repeat(depth) + "web-1"))
                        .isInstanceOf(TargetException.class).hasMessageContaining("nested deeper than 50 levels");
                assertThatThrownBy(() -> matching("compound", "(".repeat(depth) + "web-1"))
                        .isInstanceOf(TargetException.class).hasMessageContaining("nested deeper than 50 levels");
            }
        });
    }

    @Test
    void wideExpressionsAreFlatAndMatchOnASmallStack() throws Throwable {
        onSmallStack(() -> {
            String wideOr = String.join(" or ", java.util.Collections.nCopies(50_000, "db-*")) + " or web-1";
            assertThat(matching("compound", wideOr)).containsExactly("web-1", "db-1");
            String wideAnd = String.join(" and ", java.util.Collections.nCopies(50_000, "*-1")) + " and not db-*";
            assertThat(matching("compound", wideAnd)).containsExactly("web-1");
        });
    }

    @Test
    void nodegroupsCountTowardsDepthAndSize() throws Throwable {
        Map<String, String> chain = new java.util.HashMap<>();
        for (int i = 0; i < 60; i++) {
            chain.put("g" + i, "N@g" + (i + 1));
        }
        chain.put("g60", "web-1");
        assertThatThrownBy(() -> TargetExpression.parse("nodegroup", "g0", chain))
                .hasMessageContaining("nested deeper than 50 levels");
        assertThat(TargetExpression.parse("nodegroup", "g20", chain).matches(WEB1)).isTrue();

        // Each group names the next twice: 2^30 matches once expanded.
        Map<String, String> doubling = new java.util.HashMap<>();
        for (int i = 0; i < 30; i++) {
            doubling.put("d" + i, "N@d" + (i + 1) + " or N@d" + (i + 1));
        }
        doubling.put("d30", "web-1");
        assertThatThrownBy(() -> TargetExpression.parse("nodegroup", "d0", doubling))
                .hasMessage("target has more than 100000 matches (nodegroups expanded)");
        Map<String, String> long16 = new java.util.HashMap<>(doubling);
        long16.put("d16", "L@" + "x".repeat(40_000));
        assertThatThrownBy(() -> TargetExpression.expandNodegroups("nodegroup", "d10", long16))
                .hasMessageContaining("longer than 1048576 characters");
    }

    @Test
    void regularExpressionsCannotExhaustTheMatchingThread() throws Throwable {
        assertThatThrownBy(() -> matching("pcre", "(".repeat(2_000) + "a" + ")".repeat(2_000)))
                .hasMessageContaining("nests groups deeper than 50 levels");
        assertThatThrownBy(() -> matching("grain_pcre", "os:" + "[".repeat(100) + "a" + "]".repeat(100)))
                .hasMessageContaining("grain_pcre value");
        assertThat(BoundedRegex.nesting("\\((\\Q((((\\E[(]))")).isEqualTo(2);
        MinionView longId = new MinionView("a".repeat(40) + "!", Map.of("v", "ab".repeat(100_000)));
        assertThat(TargetExpression.parse("pcre", "(a+)+$", Map.of()).matches(longId)).as("catastrophic backtracking").isFalse();
        onSmallStack(() -> assertThat(TargetExpression.parse("grain_pcre", "v:(a|b)*c", Map.of()).matches(longId)).isFalse());
        assertThat(TargetExpression.parse("pcre", "a+!", Map.of()).matches(longId)).isTrue();
    }

    @Test
    void errorsQuoteLongExpressionsShortened() {
        String huge = "x".repeat(100_000) + " y";
        assertThatThrownBy(() -> matching("compound", huge)).isInstanceOf(TargetException.class)
                .hasMessageContaining("… (100002 characters)").message().hasSizeLessThan(300);
        assertThatThrownBy(() -> matching("grain", "k".repeat(10_000))).message().hasSizeLessThan(300);
    }

    @Test
    void aGrainTargetWithThousandsOfColonsTriesAtMostFiftyKeyPaths() {
        String target = "url:" + "a:".repeat(20_000) + "*";
        MinionView host = new MinionView("h", Map.of("url", "a:".repeat(20_000) + "b"));
        assertThat(TargetExpression.parse("grain", target, Map.of()).matches(host)).isTrue();
        assertThat(TargetExpression.parse("grain_pcre", "url:" + "a:".repeat(4_000), Map.of()).matches(host)).isTrue();
        assertThatThrownBy(() -> TargetExpression.parse("grain_pcre", "url:" + "a:".repeat(20_000), Map.of()))
                .hasMessageContaining("is longer than 8192 characters");
    }
}

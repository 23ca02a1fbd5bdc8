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
}

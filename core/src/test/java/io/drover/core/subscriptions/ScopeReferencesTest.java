package io.drover.core.subscriptions;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.subscriptions.ScopeReferences.Kind;
import io.drover.core.subscriptions.ScopeReferences.Reference;
import io.drover.core.subscriptions.ScopeReferences.Refusal;
import io.drover.model.subscriptions.SubscriptionSpec;
import io.drover.model.subscriptions.SubscriptionSpec.Node;
import io.drover.model.subscriptions.SubscriptionSpec.Scope;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ScopeReferencesTest {
    // business 2 (the token's): set 20, module 21, host 1 (10.0.0.1), service 5; business 7: set 70, module 71,
    // host 701 (10.0.7.1), service 75; nothing else exists
    static final Map<String, Long> WORLD = Map.of("SET 20", 2L, "MODULE 21", 2L, "HOST 1", 2L, "HOST_ADDRESS 0:10.0.0.1", 2L,
            "SERVICE_INSTANCE 5", 2L, "SET 70", 7L, "MODULE 71", 7L, "HOST 701", 7L, "HOST_ADDRESS 0:10.0.7.1", 7L,
            "SERVICE_INSTANCE 75", 7L);
    static final Predicate<Long> SCOPED_TO_2 = biz -> biz != null && biz == 2;
    static final Predicate<Long> ALL = biz -> true;

    static Long businessOf(Reference r) {
        return WORLD.get(r.kind() + " " + (r.kind() == Kind.HOST_ADDRESS ? r.cloudId() + ":" + r.ip() : r.id()));
    }

    static SubscriptionSpec spec(String objectType, String nodeType, List<Node> nodes, List<Node> targets, Map<String, Object> selector) {
        return new SubscriptionSpec("s", new Scope(2L, objectType, nodeType, nodes, selector), List.of(), targets, null, null, null, null);
    }

    static Node topo(String obj, long id) {
        return new Node(obj, id, null, null, null, null, null);
    }

    static Node host(long id) {
        return new Node(null, null, null, id, null, null, null);
    }

    static Node address(String ip) {
        return new Node(null, null, null, null, ip, 0L, null);
    }

    static List<Refusal> check(SubscriptionSpec spec, Predicate<Long> covers) {
        return ScopeReferences.check(spec, ScopeReferencesTest::businessOf, covers);
    }

    @Test
    void everyFieldThatNamesABusinessOrAnObjectIsAReference() {
        SubscriptionSpec spec = spec("HOST", "TOPO", List.of(topo("biz", 2), topo("set", 20), new Node("module", 21L, 2L, null, null,
                null, null)), List.of(host(1), address("10.0.0.1")), Map.of("host.bk_host_id", List.of(1, "701"), "host.rack", "r1",
                "host.bk_biz_id", 2));
        assertThat(ScopeReferences.of(spec)).extracting(r -> r.field() + " " + r.describe()).containsExactlyInAnyOrder(
                "scope.bk_biz_id business 2", "scope.nodes[0] business 2", "scope.nodes[1] set 20",
                "scope.nodes[2].bk_biz_id business 2", "scope.nodes[2] module 21", "target_hosts[0] host 1",
                "target_hosts[1] host 10.0.0.1 (cloud 0)", "scope.instance_selector.host.bk_host_id[0] host 1",
                "scope.instance_selector.host.bk_host_id[1] host 701", "scope.instance_selector.host.bk_biz_id business 2");
        SubscriptionSpec services = spec("SERVICE", "INSTANCE", List.of(new Node(null, null, null, null, null, null, 5L)), null, Map.of());
        assertThat(ScopeReferences.of(services)).extracting(r -> r.field() + " " + r.describe())
                .containsExactly("scope.bk_biz_id business 2", "scope.nodes[0] service instance 5");
    }

    @Test
    void aFieldTheNodeTypeDoesNotUseIsCheckedAllTheSame() {
        // a target host naming a module and a business, a TOPO node naming a host: refused for what they name
        List<Refusal> refused = check(spec("HOST", "TOPO", List.of(new Node("module", 21L, null, 701L, null, null, null)),
                List.of(new Node("module", 71L, 7L, 1L, null, null, null)), Map.of()), SCOPED_TO_2);
        assertThat(refused).allMatch(Refusal::forbidden).extracting(r -> r.field() + " " + r.message()).containsExactlyInAnyOrder(
                "scope.nodes[0] names host 701, which is not an object of a business this token covers",
                "target_hosts[0].bk_biz_id names business 7, which is not an object of a business this token covers",
                "target_hosts[0] names module 71, which is not an object of a business this token covers");
    }

    @Test
    void objectsOfTheTokensBusinessThatIsTheSubscriptionsPass() {
        assertThat(check(spec("HOST", "TOPO", List.of(topo("biz", 2), topo("set", 20), topo("module", 21)), List.of(host(1),
                address("10.0.0.1")), Map.of("host.bk_biz_id", 2)), SCOPED_TO_2)).isEmpty();
        assertThat(check(spec("SERVICE", "INSTANCE", List.of(new Node(null, null, 2L, null, null, null, 5L)), null, Map.of()),
                SCOPED_TO_2)).isEmpty();
    }

    @Test
    void aScopedTokenIsRefusedEveryFieldNamingAnotherBusinessOrItsObjects() {
        List<Refusal> refused = check(spec("HOST", "TOPO", List.of(topo("module", 21), topo("module", 71), topo("set", 70),
                topo("biz", 7), new Node("module", 21L, 7L, null, null, null, null)), List.of(host(1), host(701), address("10.0.7.1")),
                Map.of("host.bk_biz_id", List.of(7))), SCOPED_TO_2);
        assertThat(refused).allMatch(Refusal::forbidden).extracting(Refusal::field).containsExactlyInAnyOrder("scope.nodes[1]",
                "scope.nodes[2]", "scope.nodes[3]", "scope.nodes[4].bk_biz_id", "target_hosts[1]", "target_hosts[2]",
                "scope.instance_selector.host.bk_biz_id[0]");
        assertThat(check(spec("HOST", "INSTANCE", List.of(host(701)), null, Map.of()), SCOPED_TO_2)).singleElement()
                .satisfies(r -> assertThat(r.message()).isEqualTo(
                        "names host 701, which is not an object of a business this token covers"));
        assertThat(check(spec("SERVICE", "INSTANCE", List.of(new Node(null, null, null, null, null, null, 75L)), null, Map.of()),
                SCOPED_TO_2)).extracting(Refusal::field).containsExactly("scope.nodes[0]");
    }

    @Test
    void toAScopedTokenAnObjectThatDoesNotExistLooksLikeOneOfAnotherBusiness() {
        Refusal foreign = check(spec("HOST", "INSTANCE", List.of(host(701)), null, Map.of()), SCOPED_TO_2).getFirst();
        Refusal missing = check(spec("HOST", "INSTANCE", List.of(host(999)), null, Map.of()), SCOPED_TO_2).getFirst();
        assertThat(missing.forbidden()).isTrue();
        assertThat(missing.message().replace("999", "N")).isEqualTo(foreign.message().replace("701", "N"));
        Refusal missingModule = check(spec("HOST", "TOPO", List.of(topo("module", 99)), null, Map.of()), SCOPED_TO_2).getFirst();
        Refusal foreignModule = check(spec("HOST", "TOPO", List.of(topo("module", 71)), null, Map.of()), SCOPED_TO_2).getFirst();
        assertThat(missingModule.message().replace("99", "N")).isEqualTo(foreignModule.message().replace("71", "N"));
    }

    @Test
    void anAllBusinessTokenIsRefusedNodesOutsideTheSubscriptionsBusinessAsInvalid() {
        List<Refusal> refused = check(spec("HOST", "TOPO", List.of(topo("module", 21), topo("module", 71),
                new Node("set", 20L, 7L, null, null, null, null), topo("module", 99)), List.of(address("10.0.7.1")), Map.of()), ALL);
        assertThat(refused).noneMatch(Refusal::forbidden).extracting(r -> r.field() + ": " + r.message()).containsExactlyInAnyOrder(
                "scope.nodes[1]: module 71 is in business 7, not in the subscription's business 2 (scope.bk_biz_id)",
                "scope.nodes[2].bk_biz_id: business 7 is not the subscription's business 2 (scope.bk_biz_id)",
                "scope.nodes[3]: module 99 does not exist",
                "target_hosts[0]: host 10.0.7.1 (cloud 0) is in business 7, not in the subscription's business 2 (scope.bk_biz_id)");
    }

    @Test
    void aTokenOfBothBusinessesStillMayNotMixThem() {
        Predicate<Long> both = biz -> biz != null && Set.of(2L, 7L).contains(biz);
        assertThat(check(spec("HOST", "INSTANCE", List.of(host(1), host(701)), null, Map.of()), both)).singleElement()
                .satisfies(r -> {
                    assertThat(r.forbidden()).isFalse();
                    assertThat(r.field()).isEqualTo("scope.nodes[1]");
                });
    }

    @Test
    void theSubscriptionsOwnBusinessMustBeCovered() {
        SubscriptionSpec spec = new SubscriptionSpec("s", new Scope(7L, "HOST", "INSTANCE", List.of(host(701)), Map.of()), List.of(),
                null, null, null, null, null);
        assertThat(check(spec, SCOPED_TO_2)).extracting(Refusal::field).containsExactly("scope.bk_biz_id", "scope.nodes[0]");
    }
}

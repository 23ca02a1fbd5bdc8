package io.drover.core.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InventoryRulesTest {

    private static Host host(String ip, String os, List<Long> modules) {
        return new Host(1L, 2L, ip, 0L, "web-1", os, "x86_64", modules, Map.of("rack", "r1"));
    }

    @Test
    void aValidHostHasNoErrors() {
        assertThat(InventoryRules.host(host("10.0.0.1", "linux", List.of(3L)), "", true)).isEmpty();
    }

    @Test
    void reportsEveryBadFieldWithItsPrefixedPath() {
        Host bad = new Host(null, null, "10.0.0.300", -1L, "x".repeat(300), "plan9", "mips", List.of(0L, 0L), null);
        List<FieldError> errors = InventoryRules.host(bad, "hosts[4].", true);
        assertThat(errors).extracting(FieldError::field).containsExactlyInAnyOrder(
                "hosts[4].bk_host_id", "hosts[4].bk_biz_id", "hosts[4].bk_host_innerip", "hosts[4].bk_cloud_id",
                "hosts[4].bk_host_name", "hosts[4].os_type", "hosts[4].cpu_arch", "hosts[4].bk_module_ids[0]",
                "hosts[4].bk_module_ids[1]", "hosts[4].bk_module_ids");
        assertThat(errors).filteredOn(e -> e.field().endsWith("innerip"))
                .extracting(FieldError::message).containsExactly("'10.0.0.300' is not an IPv4 or IPv6 address");
    }

    @Test
    void idIsOptionalOnCreateButNeverZero() {
        assertThat(InventoryRules.business(new Business(null, "shop", null), "", false)).isEmpty();
        assertThat(InventoryRules.business(new Business(null, "shop", null), "", true))
                .extracting(FieldError::field).containsExactly("bk_biz_id");
        assertThat(InventoryRules.business(new Business(0L, "shop", null), "", false))
                .extracting(FieldError::message).containsExactly("must be a positive id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "192.168.255.255", "::1", "fe80::1", "2001:db8::8a2e:370:7334"})
    void acceptsIpAddresses(String ip) {
        assertThat(InventoryRules.isIp(ip)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0", "256.1.1.1", "host.example", "1.2.3.4.5", "01.2.3.4", ""})
    void rejectsNonAddresses(String ip) {
        assertThat(InventoryRules.isIp(ip)).isFalse();
    }

    @Test
    void setsAndModulesNeedParentsAndNames() {
        assertThat(InventoryRules.set(new TopoSet(5L, null, " "), "", true))
                .extracting(FieldError::field).containsExactly("bk_biz_id", "bk_set_name");
        assertThat(InventoryRules.module(new TopoModule(null, null, null, "db", false), "", false))
                .extracting(FieldError::field).containsExactly("bk_set_id");
    }

    @Test
    void serviceInstanceChecksLabelsAndProcessPorts() {
        ServiceInstance s = new ServiceInstance(7L, "mysql-1", null, 3L, 1L, Map.of("mysql user", "root"),
                List.of(new ServiceProcess("mysqld", "10.0.0.x", List.of(3306, 70000), "sctp")));
        assertThat(InventoryRules.serviceInstance(s, "", true)).extracting(FieldError::field).containsExactlyInAnyOrder(
                "labels.mysql user", "processes[0].bind_ip", "processes[0].ports[1]", "processes[0].protocol");
    }
}

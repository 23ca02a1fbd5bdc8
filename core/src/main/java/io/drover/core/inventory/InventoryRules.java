package io.drover.core.inventory;

import io.drover.model.api.Problem.FieldError;
import io.drover.model.inventory.Business;
import io.drover.model.inventory.Host;
import io.drover.model.inventory.ServiceInstance;
import io.drover.model.inventory.ServiceProcess;
import io.drover.model.inventory.TopoModule;
import io.drover.model.inventory.TopoSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Field rules for inventory records, checked before anything is stored. Every method returns every bad field
 * (not only the first) with its path, prefixed as the caller asks ({@code hosts[3].} in a bulk import).
 */
public final class InventoryRules {
    public static final int MAX_NAME = 128;
    public static final int MAX_HOST_NAME = 255;
    public static final Set<String> OS_TYPES = Set.of("linux", "windows", "aix", "solaris", "freebsd", "darwin");
    public static final Set<String> CPU_ARCHES = Set.of("x86", "x86_64", "aarch64", "arm", "powerpc");

    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    private static final Pattern LABEL_KEY = Pattern.compile("[A-Za-z0-9_.\\-/]{1,63}");

    private InventoryRules() {
    }

    public static List<FieldError> business(Business b, String prefix, boolean idRequired) {
        List<FieldError> errors = new ArrayList<>();
        id(errors, prefix + "bk_biz_id", b.bkBizId(), idRequired);
        name(errors, prefix + "bk_biz_name", b.bkBizName(), MAX_NAME);
        attributes(errors, prefix + "attributes", b.attributes());
        return errors;
    }

    public static List<FieldError> set(TopoSet s, String prefix, boolean idRequired) {
        List<FieldError> errors = new ArrayList<>();
        id(errors, prefix + "bk_set_id", s.bkSetId(), idRequired);
        id(errors, prefix + "bk_biz_id", s.bkBizId(), true);
        name(errors, prefix + "bk_set_name", s.bkSetName(), MAX_NAME);
        return errors;
    }

    public static List<FieldError> module(TopoModule m, String prefix, boolean idRequired) {
        List<FieldError> errors = new ArrayList<>();
        id(errors, prefix + "bk_module_id", m.bkModuleId(), idRequired);
        id(errors, prefix + "bk_set_id", m.bkSetId(), true);
        name(errors, prefix + "bk_module_name", m.bkModuleName(), MAX_NAME);
        return errors;
    }

    public static List<FieldError> host(Host h, String prefix, boolean idRequired) {
        List<FieldError> errors = new ArrayList<>();
        id(errors, prefix + "bk_host_id", h.bkHostId(), idRequired);
        id(errors, prefix + "bk_biz_id", h.bkBizId(), true);
        String ip = h.bkHostInnerip();
        if (ip == null || ip.isBlank()) {
            errors.add(new FieldError(prefix + "bk_host_innerip", "is required"));
        } else if (!isIp(ip)) {
            errors.add(new FieldError(prefix + "bk_host_innerip", "'" + ip + "' is not an IPv4 or IPv6 address"));
        }
        if (h.bkCloudId() != null && h.bkCloudId() < 0) {
            errors.add(new FieldError(prefix + "bk_cloud_id", "must be 0 or more"));
        }
        if (h.bkHostName() != null && h.bkHostName().length() > MAX_HOST_NAME) {
            errors.add(new FieldError(prefix + "bk_host_name", "is longer than " + MAX_HOST_NAME + " characters"));
        }
        oneOf(errors, prefix + "os_type", h.osType(), OS_TYPES);
        oneOf(errors, prefix + "cpu_arch", h.cpuArch(), CPU_ARCHES);
        for (int i = 0; i < h.bkModuleIds().size(); i++) {
            Long moduleId = h.bkModuleIds().get(i);
            if (moduleId == null || moduleId <= 0) {
                errors.add(new FieldError(prefix + "bk_module_ids[" + i + "]", "must be a positive id"));
            }
        }
        if (h.bkModuleIds().stream().distinct().count() != h.bkModuleIds().size()) {
            errors.add(new FieldError(prefix + "bk_module_ids", "lists a module twice"));
        }
        attributes(errors, prefix + "attributes", h.attributes());
        return errors;
    }

    public static List<FieldError> serviceInstance(ServiceInstance s, String prefix, boolean idRequired) {
        List<FieldError> errors = new ArrayList<>();
        id(errors, prefix + "id", s.id(), idRequired);
        name(errors, prefix + "name", s.name(), MAX_HOST_NAME);
        id(errors, prefix + "bk_module_id", s.bkModuleId(), true);
        id(errors, prefix + "bk_host_id", s.bkHostId(), true);
        for (Map.Entry<String, String> label : s.labels().entrySet()) {
            if (!LABEL_KEY.matcher(label.getKey()).matches()) {
                errors.add(new FieldError(prefix + "labels." + label.getKey(),
                        "label keys are 1-63 characters of letters, digits, '_', '.', '-', '/'"));
            }
            if (label.getValue() == null) {
                errors.add(new FieldError(prefix + "labels." + label.getKey(), "has no value"));
            }
        }
        for (int i = 0; i < s.processes().size(); i++) {
            ServiceProcess p = s.processes().get(i);
            String at = prefix + "processes[" + i + "].";
            name(errors, at + "name", p.name(), MAX_NAME);
            if (p.bindIp() != null && !p.bindIp().isEmpty() && !isIp(p.bindIp())) {
                errors.add(new FieldError(at + "bind_ip", "'" + p.bindIp() + "' is not an IP address"));
            }
            for (int j = 0; j < p.ports().size(); j++) {
                Integer port = p.ports().get(j);
                if (port == null || port < 1 || port > 65535) {
                    errors.add(new FieldError(at + "ports[" + j + "]", "must be between 1 and 65535"));
                }
            }
            if (p.protocol() != null && !Set.of("tcp", "udp").contains(p.protocol())) {
                errors.add(new FieldError(at + "protocol", "must be tcp or udp"));
            }
        }
        return errors;
    }

    public static boolean isIp(String text) {
        return IPV4.matcher(text).matches() || (text.contains(":") && IPV6.matcher(text).matches());
    }

    private static void id(List<FieldError> errors, String field, Long value, boolean required) {
        if (value == null) {
            if (required) {
                errors.add(new FieldError(field, "is required"));
            }
        } else if (value <= 0) {
            errors.add(new FieldError(field, "must be a positive id"));
        }
    }

    private static void name(List<FieldError> errors, String field, String value, int max) {
        if (value == null || value.isBlank()) {
            errors.add(new FieldError(field, "is required"));
        } else if (value.length() > max) {
            errors.add(new FieldError(field, "is longer than " + max + " characters"));
        }
    }

    private static void oneOf(List<FieldError> errors, String field, String value, Set<String> allowed) {
        if (value != null && !allowed.contains(value)) {
            errors.add(new FieldError(field, "'" + value + "' is not one of " + allowed.stream().sorted().toList()));
        }
    }

    private static void attributes(List<FieldError> errors, String field, Map<String, Object> attributes) {
        for (String key : attributes.keySet()) {
            if (key.isBlank()) {
                errors.add(new FieldError(field, "has an empty key"));
            }
        }
    }
}

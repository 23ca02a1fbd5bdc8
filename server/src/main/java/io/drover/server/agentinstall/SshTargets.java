package io.drover.server.agentinstall;

import io.drover.core.agents.AllowedTargets;
import io.drover.model.api.Problem.FieldError;
import io.drover.server.errors.DomainException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an install's SSH connections go, checked against agent-install-allowed-targets before anything is stored:
 * each host name is resolved once here, and the install connects to the address that was checked (a second lookup
 * could answer another address: DNS rebinding). When every target is allowed, nothing is resolved here and the
 * addresses are connected to as given.
 */
final class SshTargets {
    /** A host or jump host of a request, with the body field that names it. */
    record Target(String field, String address, int port) {
    }

    private final AllowedTargets allowed;

    SshTargets(AllowedTargets allowed) {
        this.allowed = allowed;
    }

    /**
     * The address to connect to for each given address (an IP literal when the targets are limited).
     *
     * @throws DomainException 422 {@code target_not_allowed} naming every field whose target is outside, or whose
     *                         name does not resolve
     */
    Map<String, String> check(List<Target> targets) {
        Map<String, String> connect = new HashMap<>();
        if (allowed.allowsEverything()) {
            targets.forEach(t -> connect.put(t.address(), t.address()));
            return connect;
        }
        Map<String, InetAddress> resolved = new HashMap<>();
        List<FieldError> errors = new ArrayList<>();
        for (Target t : targets) {
            InetAddress address = resolved.computeIfAbsent(t.address(), SshTargets::resolve);
            if (address == null) {
                errors.add(new FieldError(t.field(), "does not resolve to an address on this server, which must check it "
                        + "against agent-install-allowed-targets"));
            } else if (!allowed.allows(address.getAddress(), t.port())) {
                errors.add(new FieldError(t.field(), (isLiteral(t.address()) ? t.address() : "resolves to an address that")
                        + " is outside agent-install-allowed-targets on port " + t.port()));
            } else {
                connect.put(t.address(), address.getHostAddress());
            }
        }
        if (!errors.isEmpty()) {
            throw DomainException.unprocessable("target_not_allowed", errors.size() + " SSH target(s) may not be connected to: "
                    + "the first is " + errors.getFirst().field() + " (agent-install-allowed-targets)", errors);
        }
        return connect;
    }

    private static InetAddress resolve(String address) {
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isLiteral(String address) {
        return io.drover.core.net.AddressBlock.literal(address) != null;
    }
}

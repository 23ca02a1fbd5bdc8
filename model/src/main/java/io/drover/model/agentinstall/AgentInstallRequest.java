package io.drover.model.agentinstall;

import java.util.List;

/**
 * Install agents on hosts over SSH: the hosts, the SSH user with a private key (PEM text) or a password, an optional
 * jump host ({@code user@host[:port]}, with the same credentials unless its own are given), the business the agents
 * are enrolled in, how many hosts at a time (default 50, at most 200), the package version (default: the newest for
 * each host's architecture) and the server addresses the agents use. The credentials are used for this task's run
 * only and never stored. {@code prefix}, {@code service} and {@code waitSeconds} are the installer's options (tests,
 * images); {@code masterFinger} and {@code publishPort} too.
 */
public record AgentInstallRequest(List<InstallHost> hosts, String sshUser, String sshPrivateKey, String sshPassword,
                                  String jump, String jumpPrivateKey, String jumpPassword, Long bkBizId,
                                  Integer concurrency, String packageVersion, List<String> masters, String masterFinger,
                                  Integer publishPort, String prefix, String service, Integer waitSeconds) {

    /**
     * One host: its SSH address and port (22), its inventory host (bk_host_id or inner IP), the agent's id (default:
     * the address) and the installer's --prefix for this host (default: the request's).
     */
    public record InstallHost(String address, Integer port, Long bkHostId, String innerIp, String id, String prefix) {
    }
}

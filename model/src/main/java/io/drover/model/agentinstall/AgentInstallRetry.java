package io.drover.model.agentinstall;

/** Run a task's failed hosts again: the credentials are given again, since they are never stored. */
public record AgentInstallRetry(String sshPrivateKey, String sshPassword, String jumpPrivateKey, String jumpPassword) {
}

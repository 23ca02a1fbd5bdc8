package io.drover.server.http;

/**
 * Whose objects a route reads or changes, and so what a token limited to some businesses may do there. Every route
 * declares one; docs/security.md lists them and {@code AuthorizationMatrixTest} checks each route against it.
 */
public enum Scope {
    /** No token: probes, metrics and the API description. */
    NONE,
    /**
     * Objects that belong to a business (inventory, agents and their keys, jobs and returns, subscriptions, tasks,
     * events): the handler checks the business of every object it reads or changes, and lists only those the token
     * covers. An agent not assigned to a business belongs to none.
     */
    BUSINESS,
    /** Objects every business shares (packages, addons, registries), readable with any token of the role. */
    SHARED,
    /** Changes to shared objects, tokens and the audit log: only a token for every business. */
    ALL_BUSINESSES
}

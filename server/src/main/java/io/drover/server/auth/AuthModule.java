package io.drover.server.auth;

import java.nio.file.Path;
import java.time.Clock;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Authentication's parts: API tokens, the audit log, and the count of failed authentications per address. */
public final class AuthModule {
    private static final Logger log = LoggerFactory.getLogger(AuthModule.class);

    /** What the module needs from the rest of the server. */
    public record Needs(Jdbi jdbi, int failuresPerMinute, Clock clock) {
    }

    private final TokenStore tokens;
    private final AuditStore audit;
    private final AuthFailures failures;

    public AuthModule(Needs needs) {
        this.tokens = new TokenStore(needs.jdbi(), needs.clock());
        this.audit = new AuditStore(needs.jdbi(), needs.clock());
        this.failures = new AuthFailures(needs.failuresPerMinute(), needs.clock());
    }

    /** Writes the first admin token to a file of {@code dataDir} when no token exists yet; the file, or null. */
    public Path ensureAdminToken(Path dataDir) {
        return AdminTokenFile.ensure(tokens, dataDir);
    }

    /** One audit entry per address and minute with failed authentications. */
    public void auditFailures() {
        try {
            failures.drainEnded().forEach((source, count) -> audit.record("anonymous", "AUTH", source, 401,
                    count + " failed authentication(s) from " + source + " in one minute"));
        } catch (RuntimeException e) {
            log.warn("writing failed authentications to the audit log failed", e);
        }
    }

    public TokenStore tokens() {
        return tokens;
    }

    public AuditStore audit() {
        return audit;
    }

    public AuthFailures failures() {
        return failures;
    }
}

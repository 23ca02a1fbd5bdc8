package io.drover.server.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which server of a cluster does each periodic duty. On PostgreSQL a duty belongs to the server holding its
 * session-level advisory lock, on a connection of its own (not a pooled one, which the pool would retire): exactly
 * one session holds a lock, and when its server dies PostgreSQL ends the session and frees the lock for the next
 * server that asks. Each server asks for every duty it lacks once per {@link #refresh} (the lease period), and before
 * a duty runs the holder checks that its session still answers: a server cut off from the database stops leading at
 * once (fencing), since the lock went with its session. With one server (SQLite, or no cluster) it leads everything.
 */
public final class Leadership implements AutoCloseable {
    /** The periodic work that must run on exactly one server. */
    public enum Duty {
        /** Deleting old jobs, events and audit entries. */
        PRUNING,
        /** Re-planning subscriptions on inventory and agent events, and the periodic inspection. */
        SUBSCRIPTION_TRIGGERS,
        /** Starting diagnoses from Drover events and cron schedules. */
        DIAGNOSIS_TRIGGERS
    }

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);
    /**
     * The first key of a duty's advisory lock: a hash of the schema the cluster's tables are in, so that two
     * clusters (or anything else) in one database do not take each other's locks.
     */
    static final String LOCK_SPACE = "hashtext('drover:' || current_schema())";
    /** How often a server asks for the duties it lacks: how long a dead leader's duties wait for a new one. */
    public static final java.time.Duration LEASE = java.time.Duration.ofSeconds(5);

    private final String url;
    private final String user;
    private final String password;
    private final Set<Duty> held = EnumSet.noneOf(Duty.class);
    private Connection session;

    private Leadership(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** A server alone: it leads every duty. */
    public static Leadership alone() {
        return new Leadership(null, null, null);
    }

    /** Servers sharing this PostgreSQL database take duties through its advisory locks. */
    public static Leadership shared(String jdbcUrl, String user, String password) {
        return new Leadership(jdbcUrl, user, password);
    }

    /** Whether this server does the duty now: it holds the lock and its session still answers. */
    public synchronized boolean leads(Duty duty) {
        if (url == null) {
            return true;
        }
        if (!held.contains(duty)) {
            return false;
        }
        if (!sessionAnswers()) {
            lose("its database session stopped answering");
            return false;
        }
        return true;
    }

    /** Asks for every duty this server lacks; called once per lease period. */
    public synchronized void refresh() {
        if (url == null) {
            return;
        }
        try {
            if (session == null || !sessionAnswers()) {
                lose("its database session stopped answering");
                session = DriverManager.getConnection(url, user, password);
                session.setAutoCommit(true);
            }
            for (Duty duty : Duty.values()) {
                if (!held.contains(duty) && tryLock(duty)) {
                    held.add(duty);
                    log.info("cluster: this server now does {}", duty.name().toLowerCase().replace('_', ' '));
                }
            }
        } catch (SQLException e) {
            lose("the database could not be reached: " + e.getMessage());
        }
    }

    /** The duties this server holds now. */
    public synchronized Set<Duty> held() {
        return url == null ? EnumSet.allOf(Duty.class) : EnumSet.copyOf(held);
    }

    private boolean tryLock(Duty duty) throws SQLException {
        try (PreparedStatement lock = session.prepareStatement("SELECT pg_try_advisory_lock(" + LOCK_SPACE + ", ?)")) {
            lock.setInt(1, duty.ordinal());
            try (ResultSet rs = lock.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private boolean sessionAnswers() {
        if (session == null) {
            return false;
        }
        try (Statement ping = session.createStatement()) {
            ping.setQueryTimeout(2);
            ping.execute("SELECT 1");
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Drops every duty (the locks went with the session, or go with closing it). */
    private void lose(String why) {
        if (!held.isEmpty()) {
            log.warn("cluster: this server stops doing {}: {}", held, why);
        }
        held.clear();
        if (session != null) {
            try {
                session.close();
            } catch (SQLException ignored) {
                // the session is gone either way
            }
            session = null;
        }
    }

    @Override
    public synchronized void close() {
        if (session != null) {
            held.clear();
            try {
                session.close();
            } catch (SQLException ignored) {
                // closing frees the locks
            }
            session = null;
        }
    }
}

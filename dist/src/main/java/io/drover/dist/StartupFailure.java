package io.drover.dist;

import java.net.BindException;

/** Turns the usual reasons a server cannot start into one line an operator can act on. */
final class StartupFailure {
    private StartupFailure() {
    }

    /** A readable reason, or null when the failure is not one of the known ones. */
    static String explain(Throwable failure, String dataDir, int port) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof io.drover.transport.zmtp.PortInUseException inUse) {
                return inUse.getMessage() + " (another Drover server or salt-master?); choose another with --salt-publish-port / --salt-request-port";
            }
            if (t instanceof io.drover.server.http.ServerCertificate.Unusable unusable) {
                return "setting " + unusable.part().setting() + " " + unusable.getMessage();
            }
            if (t instanceof BindException) {
                return "port " + port + " is in use (another Drover server?); choose another with --port";
            }
            if (t instanceof io.drover.server.store.SqliteFile.InUse || t instanceof io.drover.server.store.SqliteFile.StrandedH2) {
                return message;
            }
            if (message.contains("Connection to") && message.contains("refused")) {
                return "cannot connect to the database: " + message;
            }
            if (message.contains("password authentication failed") || message.contains("does not exist")
                    && t instanceof java.sql.SQLException) {
                return "the database refused the connection: " + message;
            }
        }
        return null;
    }
}

package io.drover.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.keys.MasterKeyInfo;
import io.drover.model.keys.MinionKey;
import io.drover.cli.Output.Column;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drover key list|accept|reject|delete|finger}: agent keys, like salt-key. */
@Command(name = "key", description = "Agent keys (like salt-key).", subcommands = {KeyCommand.ListKeys.class,
        KeyCommand.Accept.class, KeyCommand.Reject.class, KeyCommand.Delete.class, KeyCommand.Finger.class})
public final class KeyCommand {
    static final List<Column<MinionKey>> COLUMNS = List.of(Column.of("ID", MinionKey::id), Column.of("STATE", MinionKey::state),
            Column.of("FINGERPRINT", MinionKey::fingerprint), Column.of("UPDATED", MinionKey::updatedAt));
    static final TypeReference<List<MinionKey>> LIST = new TypeReference<>() { };

    @Command(name = "list", description = "List keys.")
    static final class ListKeys implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--state", description = "accepted, pending, rejected or denied.") String state;

        @Override
        public Integer call() {
            List<MinionKey> keys = client.client().get("/api/v1/keys" + ApiClient.query(ApiClient.params("state", state)), LIST);
            client.output().print(keys, keys, COLUMNS);
            return 0;
        }
    }

    @Command(name = "accept", description = "Accept a pending (or rejected) key.")
    static final class Accept implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            MinionKey key = client.client().postNoBody("/api/v1/keys/" + id + "/accept", MinionKey.class);
            client.output().printRow(key, COLUMNS);
            return 0;
        }
    }

    @Command(name = "reject", description = "Reject a key; the agent is cut off at once.")
    static final class Reject implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.client().postNoBody("/api/v1/keys/" + id + "/reject", MinionKey.class);
            client.out().println("key " + id + " rejected");
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete a key; the agent must sign in again.")
    static final class Delete implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Parameters(paramLabel = "ID") String id;

        @Override
        public Integer call() {
            client.client().delete("/api/v1/keys/" + id);
            client.out().println("key " + id + " deleted");
            return 0;
        }
    }

    @Command(name = "finger", description = "Show the sha256 fingerprints of keys; --master: the server's own, for drover agent --master-finger.")
    static final class Finger implements Callable<Integer> {
        @Mixin ClientOptions client;
        @Option(names = "--master", description = "The master key's fingerprint, which agents pin.")
        boolean master;

        @Override
        public Integer call() {
            if (master) {
                MasterKeyInfo key = client.client().get("/api/v1/master", MasterKeyInfo.class);
                if (client.output().format() == Output.Format.table) {
                    client.out().println(key.fingerprint());
                } else {
                    client.output().printObject(key);
                }
                return 0;
            }
            List<MinionKey> keys = client.client().get("/api/v1/keys", LIST);
            client.output().print(keys, keys, List.of(Column.<MinionKey>of("ID", MinionKey::id),
                    Column.<MinionKey>of("FINGERPRINT", MinionKey::fingerprint)));
            return 0;
        }
    }
}

package io.drover.server.inventory;

import io.drover.server.testing.TestDatabases;

class PostgresInventoryStoreTest extends InventoryStoreContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.postgres();
    }
}

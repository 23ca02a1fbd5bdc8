package io.drover.server.inventory;

import io.drover.server.testing.TestDatabases;

class SqliteInventoryStoreTest extends InventoryStoreContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.sqlite();
    }
}

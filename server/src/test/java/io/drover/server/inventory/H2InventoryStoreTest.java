package io.drover.server.inventory;

import io.drover.server.testing.TestDatabases;

class H2InventoryStoreTest extends InventoryStoreContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.h2();
    }
}

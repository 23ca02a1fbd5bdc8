package io.drover.server.subscriptions.execution;

import io.drover.server.testing.TestDatabases;

class H2TaskSchedulerTest extends TaskSchedulerContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.h2();
    }
}

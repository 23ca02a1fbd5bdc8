package io.drover.server.subscriptions.execution;

import io.drover.server.testing.TestDatabases;

class SqliteTaskSchedulerTest extends TaskSchedulerContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.sqlite();
    }
}

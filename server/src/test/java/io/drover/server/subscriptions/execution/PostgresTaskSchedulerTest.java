package io.drover.server.subscriptions.execution;

import io.drover.server.testing.TestDatabases;

class PostgresTaskSchedulerTest extends TaskSchedulerContract {
    @Override
    TestDatabases.Target target() {
        return TestDatabases.postgres();
    }
}

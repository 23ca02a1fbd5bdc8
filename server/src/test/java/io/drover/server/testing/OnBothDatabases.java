package io.drover.server.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A test that runs once on SQLite and once on the real PostgreSQL; it takes the kind ({@link TestDatabases#on}). */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@ValueSource(strings = {"sqlite", "postgres"})
public @interface OnBothDatabases {
}

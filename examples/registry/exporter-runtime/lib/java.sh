#!/bin/sh
# finds the JDK the agent runs with
exec "${JAVA_HOME:-/usr}/bin/java" "$@"

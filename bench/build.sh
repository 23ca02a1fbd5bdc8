# Sourced by the benchmark scripts from the checkout's root: selects the JDK, builds Drover and the load tool,
# empties $work, and sets $cp (the load tool's class path).
. .ci/java-home
rm -rf "$work"; mkdir -p "$work"
./mvnw -q -B -DskipTests install
./mvnw -q -B -pl bench dependency:build-classpath -Dmdep.outputFile="$PWD/bench/target/classpath.txt"
cp="bench/target/classes:$(cat bench/target/classpath.txt)"

# Sourced by the benchmark scripts from the checkout's root: selects the JDK, builds Drover and the load tool,
# empties $work, and sets $cp (the load tool's class path).
. .ci/java-home
rm -rf "$work"; mkdir -p "$work"
# BENCH_NO_BUILD=1 uses the distribution and classes already built (after ./mvnw -DskipTests install)
if [ -z "${BENCH_NO_BUILD:-}" ] || [ ! -f bench/target/classpath.txt ]; then
  ./mvnw -q -B -DskipTests install
  ./mvnw -q -B -pl bench dependency:build-classpath -Dmdep.outputFile="$PWD/bench/target/classpath.txt"
fi
cp="bench/target/classes:$(cat bench/target/classpath.txt)"

# Starts a server on port $1 (-Xmx1g plus $BENCH_SERVER_OPTS, e.g. -XX:AOTMode=off; embedded SQLite, agents named f* accepted) with its data in $work, sets $server
# and $server_url, and waits until it answers /readyz.
start_server() {
  server_url=http://127.0.0.1:$1
  DROVER_SERVER_OPTS="-Xmx1g ${BENCH_SERVER_OPTS:-}" dist/target/drover/bin/drover server --port "$1" --data-dir "$work/data" \
    --auto-accept 'f*' > "$work/server.log" 2>&1 &
  server=$!
  until [ -f "$work/data/admin.token" ] && curl -sf "$server_url/readyz" >/dev/null; do
    kill -0 "$server" 2>/dev/null || { echo "the server failed to start:"; tail -5 "$work/server.log"; exit 1; }
    sleep 1
  done
}

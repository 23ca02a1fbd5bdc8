#!/bin/sh
# Times test.ping to a fleet of simulated agents: a server (-Xmx1g, embedded SQLite, auto-accept) and PROCS fleet load
# processes of PER agents each, started one after the other; the last one pings the whole fleet ROUNDS times (after
# WARMUP untimed rounds, default 3) and prints each round and the median. Also prints the server's heap, open files, and how the two
# cores were shared between the server and the load processes during the rounds.
# Usage: bench/ping.sh [PROCS PER ROUNDS [WARMUP]]   (default 2 500 15 3: 1,000 agents; 5 1600 5: 8,000 agents)
# BENCH_JFR=FILE records the server's timed rounds with JFR. FLEET_OPTS adds options to every load process (e.g. "--io-threads 1"). Needs ports 4505, 4506 and 18083 free. Figures go to docs/benchmarks.md.
# STORM=1: all load processes start at once, their agents unramped (a sign-in storm); with COLD, the restart is timed
# until a test.ping round (5 s each) gets every agent's return.
# COLD=N: after the timed rounds, restart the server (same data directory), wait until the fleet signed in again and
# time N more rounds: the server's first jobs after a start, each against the warm median.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
procs=${1:-2}; per=${2:-500}; rounds=${3:-15}; warmup=${4:-3}
work=${WORK:-/tmp/drover-ping-bench}
. bench/build.sh
java="$JAVA_HOME/bin/java"
trap 'kill $server $loads $(cat "$work/restarted.pid" 2>/dev/null) 2>/dev/null || true' EXIT
start_server 18083
if [ -n "${COLD:-}" ]; then
  # run by the pinger after its rounds: stop the server, start it again on the same data, return once it answers
  cat > "$work/restart.sh" <<RESTART
kill $server; while kill -0 $server 2>/dev/null; do sleep 0.2; done
DROVER_SERVER_OPTS="-Xmx1g ${BENCH_SERVER_OPTS:-}" nohup dist/target/drover/bin/drover server --port 18083 \\
  --data-dir "$work/data" --auto-accept 'f*' > "$work/server2.log" 2>&1 &
echo \$! > "$work/restarted.pid"
until curl -sf $server_url/readyz >/dev/null; do sleep 0.2; done
RESTART
fi

connected() {
  until grep -qs 'connected in' "$1"; do
    [ "$2" = 0 ] || kill -0 "$2" 2>/dev/null || { echo "load process failed:"; tail -5 "$1"; exit 1; }
    sleep 1
  done
  echo "$(basename "$1" .log): $(grep 'connected in' "$1")"
}
loads=""
# STORM=1: every load process starts at once and signs all its agents in at once (no ramp); the pinger's rounds start
# once every process has all its agents connected
[ -n "${STORM:-}" ] && FLEET_OPTS="--ramp $per $FLEET_OPTS"
i=1
while [ "$i" -lt "$procs" ]; do
  "$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:4506 --count "$per" --prefix "f$i-" \
    $FLEET_OPTS > "$work/f$i.log" 2>&1 &
  loads="$loads $!"
  [ -n "${STORM:-}" ] || connected "$work/f$i.log" $!
  i=$((i + 1))
done
"$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --server "$server_url" --token-file "$work/data/admin.token" \
  --master 127.0.0.1:4506 --count "$per" --prefix "f$procs-" --ping "$rounds" --warmup "$warmup" --target 'f*' --expect $((procs * per)) \
  ${COLD:+--restart-command "sh $work/restart.sh" --cold-rounds "$COLD"} ${STORM:+--await-file "$work/fleet-connected"} \
  --hold-file "$work/rounds-measured" $FLEET_OPTS > "$work/ping.log" 2>&1 &
pinger=$!
loads="$loads $pinger"
connected "$work/ping.log" $pinger
if [ -n "${STORM:-}" ]; then
  for log in "$work"/f*.log; do connected "$log" 0; done
  echo "sign-in storm: $((procs * per)) agents, the last process connected all of its agents $(grep -h 'connected in' "$work"/*.log | awk '{print $(NF-1)}' | sort -n | tail -1) s after it started"
  cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$1/stat"; }
  echo "CPU seconds so far (start-up included): server $(cpu $server), load processes$(for p in $loads; do printf ' %s' "$(cpu $p)"; done)"
  touch "$work/fleet-connected"
fi
echo "server open files: $(ls /proc/$server/fd | wc -l)"

(
  heap_max=0
  while kill -0 $pinger 2>/dev/null; do
    # jstat reads the JVM's shared performance counters: unlike a /metrics scrape (~20 ms of server CPU), it costs the
    # server nothing, so sampling does not count against the rounds
    # (after a COLD restart, the server that restart.sh started)
    pid=$(cat "$work/restarted.pid" 2>/dev/null || echo $server)
    heap=$("$JAVA_HOME/bin/jstat" -gc "$pid" 2>/dev/null | awk 'NR == 2 {printf "%d", ($3 + $4 + $6 + $8) * 1024}')
    [ "${heap:-0}" -gt "$heap_max" ] && heap_max=$heap
    sleep 1
  done
  echo "$heap_max" > "$work/heap"
) &
heap_sampler=$!

# the server's CPU over all timed rounds (from the end of the last warm-up round to the median line), per round and
# per return: everything the server does for a round (publish, returns, the HTTP calls) counted against the returns
server_ticks() { awk '{printf "%d", $14 + $15}' "/proc/$server/stat" 2>/dev/null || echo -1; }
if [ "$warmup" -gt 0 ]; then
  until grep -q "^round $((warmup - 1)):" "$work/ping.log" || ! kill -0 $pinger 2>/dev/null; do sleep 0.2; done
fi
t1=$(server_ticks)
# methods the JIT compiled and its time so far: compiling during the timed rounds is warm-up counted against them
jit() { "$JAVA_HOME/bin/jstat" -compiler $server 2>/dev/null | awk 'NR == 2 {print $1, $4}'; }
jit1=$(jit)
# BENCH_JFR=FILE records the server's timed rounds with JFR's profile settings (CPU samples and allocations) into FILE
[ -n "${BENCH_JFR:-}" ] && "$JAVA_HOME/bin/jcmd" $server JFR.start name=rounds settings=profile jdk.CPUTimeSample#enabled=true jdk.CPUTimeSample#throttle=2ms jdk.ExecutionSample#period=2ms > /dev/null

# CPU seconds per process over 5 s of ping rounds (utime + stime from /proc, in clock ticks)
ticks() { for p in $server $loads; do awk -v p="$p" '{printf "%s %d\n", p, $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done; }
# (a run whose rounds end before a fifth, e.g. a storm's 2 + 1 with the restart's rounds after them, is not sampled:
# waiting for "round 4" there kept the script and the pinger, which waits for rounds-measured, waiting on each other)
until grep -q '^round 4\|median' "$work/ping.log" || ! kill -0 $pinger 2>/dev/null; do sleep 1; done
if kill -0 $pinger 2>/dev/null && ! grep -q 'median' "$work/ping.log"; then
  ticks > "$work/cpu1"; sleep 5; ticks > "$work/cpu2"
  hz=$(getconf CLK_TCK)
  join "$work/cpu1" "$work/cpu2" | awk -v s="$server" -v hz="$hz" '{ c = ($3 - $2) / hz / 5; if ($1 == s) srv += c; else load += c }
    END { printf "CPU during the rounds: server %.2f cores, load processes %.2f cores\n", srv, load }'
fi

until grep -q 'median' "$work/ping.log" || ! kill -0 $pinger 2>/dev/null; do sleep 0.2; done
t2=$(server_ticks)
jit2=$(jit)
[ -n "${BENCH_JFR:-}" ] && "$JAVA_HOME/bin/jcmd" $server JFR.stop name=rounds filename="$BENCH_JFR" > /dev/null
touch "$work/rounds-measured" # the pinger may exit now: its agents' disconnection is not part of the rounds
[ "$t2" = -1 ] || awk -v a="$t1" -v b="$t2" -v hz="$(getconf CLK_TCK)" -v r="$rounds" -v n=$((procs * per)) 'BEGIN {
  c = (b - a) / hz; printf "server CPU over the %d timed rounds: %.2f s, %.3f s per round, %.0f µs per return\n", r, c, c / r, c / r / n * 1e6 }'
echo "$jit1 $jit2" | awk 'NF == 4 { printf "JIT during the timed rounds: %d methods compiled, %.2f s of compile time (more warm-up rounds leave less)\n", $3 - $1, $4 - $2 }'

wait $heap_sampler
grep -E '^round|median|restart|online again|answered|^cold' "$work/ping.log"
echo "server heap used at most $(($(cat "$work/heap") / 1048576)) MiB (-Xmx1g), sampled once a second"

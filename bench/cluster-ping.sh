#!/bin/sh
# Times test.ping to a fleet of simulated agents spread over a cluster: SERVERS server processes (-Xmx1g each) on
# the real PostgreSQL (schema drover_bench of database test at 127.0.0.1:5432) and a nats-server of its own that requires a
# token (127.0.0.1:14222; the servers get it with --cluster-token-file), and
# one FleetLoad process of PER agents connected to each server. The job is started on the first server, reaches the
# others through NATS, and a round ends when the first server's GET /jobs/{jid} shows every return.
# Then prints, per server, the measured cost: CPU per round per 1,000 of its agents, heap per agent after a full
# collection, and the rows PostgreSQL took per round.
# Usage: bench/cluster-ping.sh [SERVERS PER ROUNDS [WARMUP]]   (default 4 7500 5 3: 30,000 agents)
# BENCH_SERVER_OPTS adds JVM options to every server. Needs ports 14222, 18091.., 14531.. and 14541.. free. Figures go to docs/benchmarks.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
servers=${1:-4}; per=${2:-7500}; rounds=${3:-5}; warmup=${4:-3}
work=${WORK:-/tmp/drover-cluster-bench}
schema=drover_bench
psql="psql -q -h 127.0.0.1 -U ${PGUSER:-postgres} -d test"
. bench/build.sh
java="$JAVA_HOME/bin/java"
pids=""
trap 'kill $pids 2>/dev/null || true' EXIT
$psql -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema"
mkdir -p "$work"
(umask 077; od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$work/nats.token")
printf 'listen: 127.0.0.1:14222\nauthorization { token: "%s" }\n' "$(cat "$work/nats.token")" > "$work/nats.conf"
nats-server -c "$work/nats.conf" > "$work/nats.log" 2>&1 &
natspid=$!
pids="$pids $natspid"

start_node() { # index
  mkdir -p "$work/s$1"
  DROVER_SERVER_OPTS="-Xmx1g ${BENCH_SERVER_OPTS:-}" dist/target/drover/bin/drover server --port $((18090 + $1)) --data-dir "$work/s$1" \
    --salt-publish-port $((14530 + $1)) --salt-request-port $((14540 + $1)) \
    --db-url "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$schema" --db-user "${PGUSER:-postgres}" \
    --cluster nats://127.0.0.1:14222 --cluster-token-file "$work/nats.token" --auto-accept 'f*' > "$work/s$1.log" 2>&1 &
  eval "server$1=$!"
  pids="$pids $!"
  until curl -sf "http://127.0.0.1:$((18090 + $1))/readyz" >/dev/null; do
    kill -0 "$(eval echo \$server$1)" 2>/dev/null || { echo "server $1 failed to start:"; tail -5 "$work/s$1.log"; exit 1; }
    sleep 1
  done
}
start_node 1
# the servers of a cluster share the master key, the secret key and (here) the admin token
for i in $(seq 2 "$servers"); do
  mkdir -p "$work/s$i"
  cp "$work/s1/master.pem" "$work/s1/secret.key" "$work/s1/admin.token" "$work/s$i/"
  start_node "$i"
done
echo "$servers servers up"

connected() { # log pid
  until grep -qs 'connected in' "$1"; do
    kill -0 "$2" 2>/dev/null || { echo "load process failed:"; tail -5 "$1"; exit 1; }
    sleep 2
  done
  echo "$(basename "$1" .log): $(grep 'connected in' "$1")"
}
loads=""
for i in $(seq 2 "$servers"); do
  "$java" -Xmx2g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:$((14540 + i)) --count "$per" --prefix "f$i-" \
    > "$work/f$i.log" 2>&1 &
  loads="$loads $!"; pids="$pids $!"
done
for i in $(seq 2 "$servers"); do
  connected "$work/f$i.log" "$(echo $loads | cut -d' ' -f$((i - 1)))"
done
total=$((servers * per))
"$java" -Xmx2g -cp "$cp" io.drover.bench.FleetLoad --server http://127.0.0.1:18091 --token-file "$work/s1/admin.token" \
  --master 127.0.0.1:14541 --count "$per" --prefix "f1-" --ping "$rounds" --warmup "$warmup" --target 'f*' --expect "$total" \
  --hold-file "$work/rounds-measured" > "$work/ping.log" 2>&1 &
pinger=$!
loads="$loads $pinger"; pids="$pids $pinger"
connected "$work/ping.log" $pinger

hz=$(getconf CLK_TCK)
ticks() { for i in $(seq 1 "$servers"); do awk -v n="$i" '{printf "s%d %d\n", n, $14 + $15}' "/proc/$(eval echo \$server$i)/stat"; done;
          for p in $loads; do awk -v p="$p" '{printf "load%d %d\n", p, $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done
          # PostgreSQL (all its processes) and NATS share the machine: their CPU is part of a round's cost
          for p in $(pgrep -x postgres; pgrep -f '^postgres:'); do awk '{printf "postgresql %d\n", $14 + $15}' "/proc/$p/stat" 2>/dev/null || true; done
          awk '{printf "nats %d\n", $14 + $15}' "/proc/$natspid/stat" 2>/dev/null || true; }
inserted() { $psql -At -c "SELECT COALESCE(SUM(n_tup_ins), 0) FROM pg_stat_user_tables WHERE schemaname = '$schema'"; }
until grep -q "^round $((warmup - 1)):" "$work/ping.log"; do
  kill -0 $pinger 2>/dev/null || { echo "the pinger stopped:"; tail -5 "$work/ping.log"; exit 1; }
  sleep 0.2
done
ticks > "$work/cpu1"; rows1=$(inserted); t1=$(date +%s.%N)
until grep -q 'median' "$work/ping.log"; do
  kill -0 $pinger 2>/dev/null || { echo "the pinger stopped:"; tail -5 "$work/ping.log"; exit 1; }
  sleep 0.2
done
ticks > "$work/cpu2"; rows2=$(inserted); t2=$(date +%s.%N)
touch "$work/rounds-measured" # the pinger may exit now: its agents' disconnection is not part of the rounds
wait $pinger || true
grep -E '^round|median' "$work/ping.log"
awk -v hz="$hz" -v rounds="$rounds" -v per="$per" -v wall="$(echo "$t2 - $t1" | bc)" '
  NR == FNR { a[$1] += $2; next } { b[$1] += $2 }
  END { for (k in b) { cpu = (b[k] - a[k]) / hz;
          if (k ~ /^load/) load += cpu;
          else if (k == "postgresql" || k == "nats") printf "%s: %.0f CPU ms per round (%.2f cores over the timed rounds)\n", k, cpu * 1000 / rounds, cpu / wall;
          else printf "%s: %.0f CPU ms per round, %.0f CPU ms per round per 1,000 of its agents (%.2f cores over the timed rounds)\n",
                      k, cpu * 1000 / rounds, cpu * 1000 / rounds / (per / 1000), cpu / wall }
        printf "load processes still running (all but the pinger): %.2f cores over the timed rounds\n", load / wall }' "$work/cpu1" "$work/cpu2" | sort
echo "PostgreSQL rows inserted per round: $(( (rows2 - rows1) / rounds )) ($(( (rows2 - rows1) / rounds / total )) per agent)"
for i in $(seq 1 "$servers"); do
  pid=$(eval echo \$server$i)
  "$JAVA_HOME/bin/jcmd" "$pid" GC.run >/dev/null
  used=$(curl -s "http://127.0.0.1:$((18090 + i))/metrics" | grep '^jvm_memory_used_bytes{area="heap"' | awk '{s += $NF} END {printf "%d", s}')
  echo "s$i: heap used after a full collection $((used / 1048576)) MiB, $((used / per)) bytes per agent (its $per agents; the pinger's agents have left), open files $(ls /proc/$pid/fd | wc -l), RSS $(($(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024)) MiB"
done

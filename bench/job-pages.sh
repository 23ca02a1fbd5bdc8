#!/bin/sh
# A job to 10,000 simulated agents, read back a page at a time, with the server's heap measured. One server process
# cannot hold 10,000 agents here (two connections each, and this machine allows 20,000 open files), so the agents are
# spread over SERVERS servers of a cluster (-Xmx${SERVER_HEAP:-512m} each) on the real PostgreSQL (schema
# drover_job_pages of database test at 127.0.0.1:5432) and a nats-server of their own (127.0.0.1:14223), with one
# FleetLoad process of PER agents on each. One test.ping job goes to all of them from the first server; then
# `drover job get JID` streams the job's agents from the first server's GET /jobs/{jid}/returns, 500 a page.
# Prints how long the job and the paging took, how many agents the CLI printed, and the first server's heap (most
# used, and most live after a collection, sampled every 0.2 s from /metrics) while the returns came in and while they were paged through; then the same
# for one GET /jobs/{jid}, which answers every return at once.
# Usage: bench/job-pages.sh [SERVERS PER]   (default 2 5000). Uses the distribution and classes already built in this
# checkout (./mvnw -pl dist,bench -am package -DskipTests -Ddrover.agent-package.skip=true). Needs ports 14223,
# 18191.., 14631.. and 14641.. free. Figures go to docs/benchmarks.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. .ci/java-home
servers=${1:-2}; per=${2:-5000}
work=${WORK:-/tmp/drover-job-pages-bench}
schema=drover_job_pages
psql="psql -q -h 127.0.0.1 -U ${PGUSER:-postgres} -d test"
rm -rf "$work"; mkdir -p "$work"
java="$JAVA_HOME/bin/java"
cp="bench/target/classes:dist/target/drover/lib/*"
drover=dist/target/drover/bin/drover
pids=""
trap 'kill $pids 2>/dev/null || true' EXIT
$psql -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "CREATE SCHEMA $schema"
(umask 077; od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$work/nats.token")
printf 'listen: 127.0.0.1:14223\nauthorization { token: "%s" }\n' "$(cat "$work/nats.token")" > "$work/nats.conf"
nats-server -c "$work/nats.conf" > "$work/nats.log" 2>&1 &
pids="$pids $!"

start_node() { # index
  mkdir -p "$work/s$1"
  DROVER_SERVER_OPTS="-Xmx${SERVER_HEAP:-512m}" $drover server --port $((18190 + $1)) --data-dir "$work/s$1" \
    --salt-publish-port $((14630 + $1)) --salt-request-port $((14640 + $1)) \
    --db-url "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$schema" --db-user "${PGUSER:-postgres}" \
    --cluster nats://127.0.0.1:14223 --cluster-token-file "$work/nats.token" --auto-accept 'f*' > "$work/s$1.log" 2>&1 &
  eval "server$1=$!"
  pids="$pids $!"
  until curl -sf "http://127.0.0.1:$((18190 + $1))/readyz" >/dev/null; do
    kill -0 "$(eval echo \$server$1)" 2>/dev/null || { echo "server $1 failed to start:"; tail -5 "$work/s$1.log"; exit 1; }
    sleep 1
  done
}
start_node 1
for i in $(seq 2 "$servers"); do
  mkdir -p "$work/s$i"
  cp "$work/s1/master.pem" "$work/s1/secret.key" "$work/s1/admin.token" "$work/s$i/"
  start_node "$i"
done
server_url=http://127.0.0.1:18191
token=$(cat "$work/s1/admin.token")
for i in $(seq 1 "$servers"); do
  "$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:$((14640 + i)) --count "$per" --prefix "f$i-" \
    > "$work/f$i.log" 2>&1 &
  pids="$pids $!"
  until grep -qs 'connected in' "$work/f$i.log"; do sleep 2; done
  echo "f$i: $(grep 'connected in' "$work/f$i.log")"
done
expect=$((servers * per))

heap() { curl -s "$server_url/metrics" | awk '/^jvm_memory_used_bytes\{area="heap"/ {u += $NF} /^jvm_gc_live_data_size_bytes/ {l = $NF}
  END {printf "%d %d", u, l}'; }
# samples the first server's heap every 0.2 s until $work/$1.stop exists, then writes to $work/$1 the most used and the
# most still live after a collection (jvm_gc_live_data_size_bytes: the old generation after one), in MiB
sample() { ( mu=0; ml=0; while [ ! -f "$work/$1.stop" ]; do set -- $(heap) "$1"; [ "${1:-0}" -gt "$mu" ] && mu=$1
  [ "${2%.*}" -gt "$ml" ] 2>/dev/null && ml=${2%.*}; shift 2; sleep 0.2; done
  echo "$((mu / 1048576)) MiB used, $((ml / 1048576)) MiB live after a collection" > "$work/$1" ) & }
stop() { touch "$work/$1.stop"; while [ ! -f "$work/$1" ]; do sleep 0.1; done; cat "$work/$1"; }
ms() { date +%s%3N; }
start_job() { curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -X POST "$server_url/api/v1/jobs" \
  -d '{"tgt":"f*","fun":"test.ping","timeout":60}' | sed 's/.*"jid":"\([0-9]*\)".*/\1/'; }
returned() { curl -sf -H "Authorization: Bearer $token" "$server_url/api/v1/jobs?limit=1" | grep -o '"RETURNED":[0-9]*' | cut -d: -f2; }

# PUB/SUB drops what is sent before a subscription lands: ping until every agent answers one job within 30 s
while :; do
  start_job > /dev/null; n=0
  while [ "$n" -lt 150 ] && [ "$(returned)" != "$expect" ]; do sleep 0.2; n=$((n + 1)); done
  [ "$(returned)" = "$expect" ] && break
done

sample job; t0=$(ms)
jid=$(start_job)
until [ "$(returned)" = "$expect" ]; do sleep 0.2; done
t1=$(ms); job_heap=$(stop job)
echo "job $jid to $expect agents: every agent recorded RETURNED after $((t1 - t0)) ms; first server's heap at most $job_heap meanwhile"

sample pages; t0=$(ms)
$drover job get "$jid" --page-size 500 --server "$server_url" --token "$token" > "$work/pages.txt"
t1=$(ms); pages_heap=$(stop pages)
echo "drover job get: $(grep -c ' returned ' "$work/pages.txt") agent lines over $(((expect + 499) / 500)) pages in $((t1 - t0)) ms" \
  "($(tail -1 "$work/pages.txt")); first server's heap at most $pages_heap meanwhile"

sample whole; t0=$(ms)
curl -sf -H "Authorization: Bearer $token" "$server_url/api/v1/jobs/$jid" > "$work/whole.json"
t1=$(ms); whole_heap=$(stop whole)
echo "GET /jobs/$jid (everything at once): $(wc -c < "$work/whole.json") bytes in $((t1 - t0)) ms; first server's heap at most $whole_heap meanwhile"

#!/bin/sh
# Soak run of the transport under hostile clients: a server (-Xmx1g, embedded SQLite, auto-accept), 1,000 simulated
# agents in two load processes pinged every 5 s through the REST API, and HostileLoad attacking both transport ports
# for the same time (random and oversized frames, 10,000 connections opened and dropped, 500 half-open connections,
# huge and excess SUBSCRIBEs). Prints the rounds that collected every return, the server's largest RSS, its
# transport restarts (thread deaths) and bad-frame counts, and /readyz at the end.
# Usage: bench/soak.sh [SECONDS]   (default 600). Needs ports 4505, 4506 and 18084 free. Figures: docs/reliability.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-600}
work=${WORK:-/tmp/drover-soak}
. bench/build.sh
java="$JAVA_HOME/bin/java"
trap 'kill $server $loads $hostile $sampler 2>/dev/null || true' EXIT
start_server 18084

"$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:4506 --count 500 --prefix f1- > "$work/f1.log" 2>&1 &
loads=$!
until grep -qs 'connected in' "$work/f1.log"; do sleep 1; done
rounds=$((seconds / 5))
"$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --server "$server_url" --token-file "$work/data/admin.token" \
  --master 127.0.0.1:4506 --count 500 --prefix f2- --ping "$rounds" --warmup 1 --interval 5 --target 'f*' --expect 1000 \
  > "$work/ping.log" 2>&1 &
pinger=$!
loads="$loads $pinger"
until grep -qs 'connected in' "$work/ping.log"; do sleep 1; done
echo "1,000 agents connected; attacking for $seconds s while pinging every 5 s"

(
  rss_max=0
  while kill -0 $pinger 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' /proc/$server/status)
    [ "${rss:-0}" -gt "$rss_max" ] && rss_max=$rss && echo "$rss_max" > "$work/rss_max"
    sleep 2
  done
) &
sampler=$!
"$java" -Xmx256m -cp "$cp" io.drover.bench.HostileLoad --seconds "$seconds" > "$work/hostile.log" 2>&1 &
hostile=$!
wait $pinger || true
wait $hostile || true

echo "ping: $(grep 'rounds with every return' "$work/ping.log")"
echo "ping: $(grep 'every return collected' "$work/ping.log")"
echo "hostile: $(tail -1 "$work/hostile.log")"
echo "server RSS max: $(( $(cat "$work/rss_max") / 1024 )) MiB"
curl -s "$server_url/metrics" | grep -E '^drover_salt_transport_restarts'
curl -s "$server_url/metrics" | grep -E '^drover_salt_(bad_frames|connections_refused)' | grep -v ' 0.0$' || true
echo "readyz: $(curl -s "$server_url/readyz")"
echo "server threads: $(ls /proc/$server/task | wc -l), open files: $(ls /proc/$server/fd | wc -l)"

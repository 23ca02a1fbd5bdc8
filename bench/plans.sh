#!/bin/sh
# Execution plan benchmarks: (1) a Bash-script plan to AGENTS simulated agents (real plan runner, real bash) over the
# Drover transport, ROUNDS timed rounds; (2) 1,000 plans through RabbitMQ (127.0.0.1:5672) to one agent; (3) the
# resident memory of a real `drover agent` idle, and after it ran plans.
# Usage: bench/plans.sh [AGENTS ROUNDS]   (default 100 20). Needs ports 4505, 4506 and 18084 free. Figures go to docs/benchmarks.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
agents=${1:-100}; rounds=${2:-20}
work=${WORK:-/tmp/drover-plans-bench}
. bench/build.sh
java="$JAVA_HOME/bin/java"
trap 'kill $server $load $agent 2>/dev/null || true' EXIT
start_server 18084

"$java" -Xmx512m -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:4506 --count "$agents" --prefix f1- \
  --functions "$work/hosts" > "$work/load.log" 2>&1 &
load=$!
until grep -qs 'connected in' "$work/load.log"; do kill -0 $load || { tail -5 "$work/load.log"; exit 1; }; sleep 1; done
echo "one agent:"
"$java" -cp "$cp" io.drover.bench.PlanBenchmark drover --server "$server_url" --token-file "$work/data/admin.token" \
  --target 'f1-0' --expect 1 --rounds "$rounds" | tail -1
echo "$agents agents at once, a Body without script:"
"$java" -cp "$cp" io.drover.bench.PlanBenchmark drover --server "$server_url" --token-file "$work/data/admin.token" \
  --target 'f1-*' --expect "$agents" --rounds "$rounds" --body simple | tail -1
echo "$agents agents at once:"
"$java" -cp "$cp" io.drover.bench.PlanBenchmark drover --server "$server_url" --token-file "$work/data/admin.token" \
  --target 'f1-*' --expect "$agents" --rounds "$rounds"
kill $load
echo "the machine's floor for the script part ($agents processes started at once, no Drover):"
"$java" -cp "$cp" io.drover.bench.PlanBenchmark spawn --count "$agents" --rounds "$rounds" --dir "$work/spawn"

"$java" -cp "$cp" io.drover.bench.PlanBenchmark amqp --plans 1000 --state "$work/amqp-agent"

dist/target/drover/bin/drover agent --master 127.0.0.1:4506 --id f-rss --root "$work/rss-host" > "$work/agent.log" 2>&1 &
agent=$!
sleep 20
echo "agent idle RSS: $(awk '/VmRSS/ {printf "%.1f MiB", $2 / 1024}' /proc/$(pgrep -f 'id f-rss' | tail -1)/status)"
"$java" -cp "$cp" io.drover.bench.PlanBenchmark drover --server "$server_url" --token-file "$work/data/admin.token" \
  --target f-rss --expect 1 --rounds 5 --warmup 0 > /dev/null
sleep 5
echo "agent RSS after 5 plans: $(awk '/VmRSS/ {printf "%.1f MiB", $2 / 1024}' /proc/$(pgrep -f 'id f-rss' | tail -1)/status)"

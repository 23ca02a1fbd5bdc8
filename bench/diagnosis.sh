#!/bin/sh
# Diagnosis benchmarks: (1) the host-overview set (three scripts) on AGENTS simulated agents at once (real agent
# functions, real /bin/sh), time until all ended; (2) 1,000 alerts per second for 10 s through the webhook, one
# distinct alert per host, the rest repeats (deduplicated), request latency percentiles.
# Usage: bench/diagnosis.sh [AGENTS]   (default 100). Needs ports 14525, 14526 and 18085 free. Figures go to docs/benchmarks.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
agents=${1:-100}
work=${WORK:-/tmp/drover-diagnosis-bench}
. bench/build.sh
java="$JAVA_HOME/bin/java"
drover="dist/target/drover/bin/drover"
export DROVER_SERVER=http://127.0.0.1:18085

python3 - "$work/inventory.yaml" "$agents" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
lines = ["businesses: [{bk_biz_id: 2, bk_biz_name: load}]", "sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: fleet}]",
         "modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: hosts}]", "hosts:"]
for i in range(n):
    lines.append("  - {bk_host_id: %d, bk_biz_id: 2, bk_host_innerip: 10.50.%d.%d, bk_cloud_id: 0, bk_host_name: diag-%d, bk_module_ids: [20]}"
                 % (i + 1, i // 250, i % 250 + 1, i + 1))
open(path, "w").write("\n".join(lines) + "\n")
PY

DROVER_SERVER_OPTS="-Xmx1g" "$drover" server --data-dir "$work/data" --port 18085 --salt-publish-port 14525 \
  --salt-request-port 14526 --auto-accept 'dg-*' --agent-biz 2 --inspection-interval-seconds 0 > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server $load 2>/dev/null || true' EXIT
until [ -f "$work/data/admin.token" ] && curl -sf "$DROVER_SERVER/readyz" >/dev/null; do sleep 1; done
export DROVER_TOKEN=$(cat "$work/data/admin.token")
"$drover" inventory import "$work/inventory.yaml" > /dev/null

"$java" -Xmx1g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:14526 --count "$agents" --prefix dg- \
  --functions "$work/roots" --ip-base 10.50 > "$work/load.log" 2>&1 &
load=$!
until [ "$(curl -sf -H "Authorization: Bearer $DROVER_TOKEN" "$DROVER_SERVER/api/v1/agents" | grep -o '"online":true' | wc -l)" -ge "$agents" ]; do
  kill -0 $load || { tail -5 "$work/load.log"; exit 1; }; sleep 1
done
"$java" -cp "$cp" io.drover.bench.DiagnosisBenchmark concurrent --server "$DROVER_SERVER" --token-file "$work/data/admin.token" \
  --hosts "$agents" --rounds 3
"$java" -cp "$cp" io.drover.bench.DiagnosisBenchmark alerts --server "$DROVER_SERVER" --token-file "$work/data/admin.token" \
  --hosts "$agents" --rate 1000 --seconds 10

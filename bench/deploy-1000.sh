#!/bin/sh
# Deploys demo-exporter (a third-party plugin with a port range) to 1,000 simulated agents through a subscription
# and times it end to end, with the server at -Xmx1g. The agents are two fleet load processes of 500 running the
# real agent functions, each under its own root in $work/roots (process start simulated).
# Usage: bench/deploy-1000.sh [count-per-process]   (figures go to docs/benchmarks.md)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
per=${1:-500}
work=${WORK:-/tmp/drover-deploy-bench}
. bench/build.sh
drover="dist/target/drover/bin/drover"
export DROVER_SERVER=http://127.0.0.1:18084

python3 - "$work/inventory.yaml" "$per" <<'PY'
import sys
path, per = sys.argv[1], int(sys.argv[2])
lines = ["businesses: [{bk_biz_id: 2, bk_biz_name: load}]", "sets: [{bk_set_id: 10, bk_biz_id: 2, bk_set_name: fleet}]",
         "modules: [{bk_module_id: 20, bk_set_id: 10, bk_module_name: exporters}]", "hosts:"]
n = 1
for base in ("10.50", "10.51"):
    for i in range(per):
        lines.append("  - {bk_host_id: %d, bk_biz_id: 2, bk_host_innerip: %s.%d.%d, bk_cloud_id: 0, bk_host_name: load-%d, os_type: linux, cpu_arch: x86_64, bk_module_ids: [20], attributes: {rack: r%d}}" % (n, base, i // 250, i % 250 + 1, n, n % 40))
        n += 1
open(path, "w").write("\n".join(lines) + "\n")
PY

DROVER_SERVER_OPTS="-Xmx1g" "$drover" server --data-dir "$work/data" --port 18084 --salt-publish-port 14515 \
  --salt-request-port 14516 --auto-accept 'dep-*' --agent-biz 2 --inventory-debounce-seconds 3600 \
  --inspection-interval-seconds 0 > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server $a $b 2>/dev/null || true' EXIT
until [ -f "$work/data/admin.token" ] && curl -sf "$DROVER_SERVER/readyz" >/dev/null; do sleep 1; done
export DROVER_TOKEN=$(cat "$work/data/admin.token")
"$drover" inventory import "$work/inventory.yaml"
"$drover" plugin upload examples/registry/demo-exporter

"$JAVA_HOME/bin/java" -Xmx2g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:14516 --count "$per" --prefix dep-a- \
  --functions "$work/roots" --ip-base 10.50 > "$work/fleet-a.log" 2>&1 &
a=$!
until grep -q 'heartbeats sent' "$work/fleet-a.log"; do sleep 2; done
"$JAVA_HOME/bin/java" -Xmx2g -cp "$cp" io.drover.bench.FleetLoad --master 127.0.0.1:14516 --count "$per" --prefix dep-b- \
  --functions "$work/roots" --ip-base 10.51 > "$work/fleet-b.log" 2>&1 &
b=$!
until grep -q 'heartbeats sent' "$work/fleet-b.log"; do sleep 2; done
total=$((per * 2))
until [ "$("$drover" agent list -o json | grep -c '"bk_host_id" : [0-9]')" -ge "$total" ]; do sleep 2; done
echo "$total agents linked to their hosts"

cat > "$work/sub.yaml" <<'Y'
name: load exporters
scope: {bk_biz_id: 2, object_type: HOST, node_type: TOPO, nodes: [{bk_obj_id: module, bk_inst_id: 20}]}
steps:
  - {id: exporter, type: PLUGIN, config: {plugin_name: demo-exporter}, params: {context: {scrape_interval: 30}}}
Y
heap_max=0
start=$(date +%s.%N)
"$drover" sub create -f "$work/sub.yaml" > "$work/create.log"
# polled with curl, not the CLI (a JVM started every second would take a third of a core from the run), and as the
# subscription's task list, whose tasks carry counts, not their 1,000 instances with every step
auth="Authorization: Bearer $DROVER_TOKEN"
while curl -sf -H "$auth" "$DROVER_SERVER/api/v1/subscriptions/1/tasks" | grep -q '"status" *: *"RUNNING"'; do
  heap=$(curl -s "$DROVER_SERVER/metrics" | grep '^jvm_memory_used_bytes{area="heap"' | awk '{s += $NF} END {printf "%d", s}')
  [ "$heap" -gt "$heap_max" ] && heap_max=$heap
  sleep 1
done
end=$(date +%s.%N)
"$drover" task show 1 -o json | grep -A6 '"counts"' | head -8
echo "deployed to $total simulated agents in $(echo "$end - $start" | bc) s; server heap used at most $((heap_max / 1048576)) MiB (-Xmx1g)"

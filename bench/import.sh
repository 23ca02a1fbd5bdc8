#!/bin/sh
# Times importing an inventory of HOSTS hosts (default 100,000: about 19 MB of JSON) in one request into a fresh
# server (-Xmx1g, embedded store), exporting it, and importing the export back (which changes nothing).
# Usage: bench/import.sh [HOSTS]   (figures go to docs/benchmarks.md)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hosts=${1:-100000}
work=${WORK:-/tmp/drover-import-bench}
. bench/build.sh
drover="dist/target/drover/bin/drover"
export DROVER_SERVER=http://127.0.0.1:18085
python3 - "$work/fleet.json" "$hosts" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
doc = {"businesses": [{"bk_biz_id": 5, "bk_biz_name": "fleet"}],
       "sets": [{"bk_set_id": 50, "bk_biz_id": 5, "bk_set_name": "all"}],
       "modules": [{"bk_module_id": 51, "bk_set_id": 50, "bk_module_name": "hosts"}],
       "hosts": [{"bk_host_id": i, "bk_biz_id": 5, "bk_host_innerip": "10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255),
                  "bk_host_name": "h%d" % i, "os_type": "linux", "bk_module_ids": [51], "attributes": {"rack": "r%d" % (i % 40)}}
                 for i in range(1, n + 1)]}
json.dump(doc, open(path, "w"))
PY
DROVER_SERVER_OPTS="-Xmx1g ${BENCH_SERVER_OPTS:-}" "$drover" server --data-dir "$work/data" --port 18085 --salt-publish-port 14525 \
  --salt-request-port 14526 > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
until [ -f "$work/data/admin.token" ] && curl -sf "$DROVER_SERVER/readyz" >/dev/null; do sleep 1; done
export DROVER_TOKEN=$(cat "$work/data/admin.token")
seconds() { python3 -c 'import time; print(time.time())'; }
t0=$(seconds); "$drover" inventory import "$work/fleet.json" >/dev/null; t1=$(seconds)
"$drover" inventory export -o json -f "$work/export.json" >/dev/null; t2=$(seconds)
"$drover" inventory import "$work/export.json" >/dev/null; t3=$(seconds)
python3 -c "import sys; a,b,c,d=map(float,sys.argv[1:]); print('import of %s hosts: %.1f s; export: %.1f s; import of the export: %.1f s' % ('$hosts', b-a, c-b, d-c))" $t0 $t1 $t2 $t3
echo "server RSS: $(ps -o rss= -p $server | awk '{printf "%d MiB", $1/1024}')"

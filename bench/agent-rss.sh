#!/bin/sh
# Resident memory of one `drover agent` as it works: a server (embedded SQLite, the demo inventory) and one agent
# for demo host 1 (10.0.1.1), started from the distribution $DROVER_HOME with the launcher's flags. Prints the
# agent's RSS idle (30 s after it came online), 30 s after the quickstart's subscription deployed the two example
# plugins (demo-exporter, a process the agent supervises, and bkmonitorbeat's sub-configs) to it, and 30 s after N
# jobs (default 1000: test.ping and cmd.run alternately, one at a time through the REST API), each split from
# /proc/PID/smaps (anonymous: heap, metaspace, stacks, malloc; libjvm.so; other files) with the thread count, the
# smaps kept in $WORK; at the end the JVM's own view (`jcmd`: heap after a full GC, metaspace, classes) and, with
# NMT=1 (which adds its own overhead), NMT's summary of each stage in $WORK. AGENT_JAVA_OPTS adds agent JVM options
# (through JAVA_TOOL_OPTIONS, so the launcher's flags win; the agent's plugins inherit them).
# Usage: bench/agent-rss.sh [JOBS]   (figures go to docs/benchmarks.md#agent-memory)
# DROVER_HOME: the distribution (default dist/target/drover, built by ./mvnw -DskipTests package); WORK: scratch
# directory (default /tmp/drover-agent-rss); ports PORT (default 18086, HTTP), PORT-3541 and PORT-3540 (14545, 14546:
# agent transport) and the example exporter's 19100 must be free.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${1:-1000}
home=${DROVER_HOME:-$root/dist/target/drover}
work=${WORK:-/tmp/drover-agent-rss}
[ -n "${JAVA_HOME:-}" ] || . "$root/.ci/java-home"
export JAVA_HOME
drover="$home/bin/drover"
port=${PORT:-18086}; pub=$((port - 3541)); req=$((port - 3540))
export DROVER_SERVER=http://127.0.0.1:$port
rm -rf "$work"; mkdir -p "$work/host-1"

DROVER_SERVER_OPTS="-Xmx512m" "$drover" server --data-dir "$work/data" --port $port --salt-publish-port $pub \
  --salt-request-port $req --auto-accept 'rss-*' --agent-biz 2 --inspection-interval-seconds 0 > "$work/server.log" 2>&1 &
server=$!
agent=
trap 'kill $agent $server 2>/dev/null || true' EXIT
until [ -f "$work/data/admin.token" ] && curl -sf "$DROVER_SERVER/readyz" >/dev/null; do
  kill -0 $server 2>/dev/null || { echo "the server failed to start:"; tail -5 "$work/server.log"; exit 1; }
  sleep 1
done
export DROVER_TOKEN=$(cat "$work/data/admin.token")
auth="Authorization: Bearer $DROVER_TOKEN"
"$drover" inventory import "$home/examples/inventory/demo.yaml" > /dev/null
# as the quickstart does (QuickstartDeployment): the example registry, both addons enabled
"$drover" registry add examples --type local --url "$home/examples/registry" > /dev/null
"$drover" addon enable examples/demo-exporter --set api_token=0123456789abcdef --set scrape_interval=30 > /dev/null
"$drover" addon enable examples/bkmonitorbeat > /dev/null

# the agent, alone: its class loading and memory are measured, so nothing else starts while it runs
JAVA_TOOL_OPTIONS="${NMT:+-XX:NativeMemoryTracking=summary} ${AGENT_JAVA_OPTS:-}"
export JAVA_TOOL_OPTIONS
"$drover" agent --master 127.0.0.1:$req --publish-port $pub --id rss-1 --root "$work/host-1" --ip 10.0.1.1 \
  > "$work/agent.log" 2>&1 &
agent=$!
unset JAVA_TOOL_OPTIONS
pid=$agent # the launcher execs java
until curl -sf -H "$auth" "$DROVER_SERVER/api/v1/agents/rss-1" | grep -q '"bk_host_id" *: *1'; do
  kill -0 $pid 2>/dev/null || { echo "the agent stopped:"; tail -5 "$work/agent.log"; exit 1; }
  sleep 1
done

# RSS and where it lies, from smaps: the Java heap is the anonymous mapping that holds the heap's reserved range
report() {
  awk -v stage="$1" -v threads="$(ls /proc/$pid/task | wc -l)" '
    /^[0-9a-f]+-[0-9a-f]+ / { name = $6; anon = (NF < 6 || name ~ /^\[/) }
    /^Rss:/ { rss += $2; if (name ~ /libjvm/) jvm += $2; else if (anon) a += $2; else f += $2 }
    END { printf "%-22s RSS %6.1f MiB  (anonymous %5.1f, libjvm.so %5.1f, other files %4.1f; %d threads)\n", stage, rss/1024, a/1024, jvm/1024, f/1024, threads }
  ' "/proc/$pid/smaps"
  cp "/proc/$pid/smaps" "$work/smaps-$2.txt" # for a closer look: mapping by mapping
  # with NMT=1, the JVM's own view of each stage, kept in $work (the first jcmd starts the attach listener thread)
  [ -z "${NMT:-}" ] || "$JAVA_HOME/bin/jcmd" $pid VM.native_memory summary > "$work/nmt-$2.txt"
}
sleep 30
report "idle" idle

cat > "$work/sub.yaml" <<'Y'
name: quickstart exporters
scope: {bk_biz_id: 2, object_type: HOST, node_type: INSTANCE, nodes: [{bk_host_id: 1}]}
steps:
  - id: exporter
    type: PLUGIN
    config: {plugin_name: demo-exporter, plugin_version: latest}
    params: {context: {scrape_interval: 30}}
  - id: beat
    type: PLUGIN
    config:
      plugin_name: bkmonitorbeat
      config_templates: [{name: bkmonitorbeat_script.conf}, {name: bkmonitorbeat_http.conf}]
    params:
      context: {period: 60, url: "http://{{ cmdb_instance.host.bk_host_innerip }}/health"}
Y
"$drover" sub create -f "$work/sub.yaml" > /dev/null
while curl -sf -H "$auth" "$DROVER_SERVER/api/v1/subscriptions/1/tasks" | grep -q '"status" *: *"RUNNING"'; do sleep 1; done
curl -sf -H "$auth" "$DROVER_SERVER/api/v1/subscriptions/1/instances" | grep -o '"plugin":"[^"]*","version":"[^"]*","status":"[A-Z_]*"' \
  | tr -d '"' | tr '\n' ' '; echo
sleep 30
report "after the deployment" deployed

i=0; start=$(date +%s)
while [ $i -lt "$jobs" ]; do
  if [ $((i % 2)) -eq 0 ]; then body='{"tgt": "rss-1", "fun": "test.ping"}'
  else body='{"tgt": "rss-1", "fun": "cmd.run", "arg": ["echo job '$i'"]}'; fi
  jid=$(curl -sf -H "$auth" -H 'Content-Type: application/json' -d "$body" "$DROVER_SERVER/api/v1/jobs" \
    | sed -n 's/.*"jid" *: *"\([0-9]*\)".*/\1/p')
  curl -sf -H "$auth" "$DROVER_SERVER/api/v1/jobs/$jid?wait=30" | grep -q '"rss-1"' || { echo "job $jid: no return"; exit 1; }
  i=$((i + 1))
done
echo "$jobs jobs in $(( $(date +%s) - start )) s"
sleep 30
report "after $jobs jobs" jobs

jcmd="$JAVA_HOME/bin/jcmd"
"$jcmd" $pid GC.run > /dev/null
"$jcmd" $pid GC.heap_info | grep -E '^ *(DefNew|Tenured|def new|tenured)' | sed 's/^ */after a full GC: /'
"$jcmd" $pid VM.metaspace | sed -n 's/^ *Both: *[0-9]* chunks, *\([0-9.]* [KM]B\) capacity, *\([0-9.]* [KM]B\).*committed.*/metaspace (class space included): \1 capacity, \2 committed/p'
echo "classes loaded: $("$jcmd" $pid VM.classes | grep -c '^0x')"
[ -z "${NMT:-}" ] || grep -E '^(Total|-  *[A-Z][A-Za-z ]+ \()' "$work/nmt-jobs.txt"

#!/bin/sh
# Drover against a real salt-master 3006.0 on the same load: the independent Python swarm (bench/swarm, one process
# per core, no Drover or Salt code) of MINIONS simulated Salt 3006 minions joins a Drover server, answers ROUNDS timed
# test.ping jobs to all (after WARMUP untimed ones), then joins a salt-master (bench/salt-master.sh) and does the same.
# A round is timed from just before the job is started (Drover: POST /api/v1/jobs; Salt: the LocalClient's "publish"
# request) to the last return the master acknowledged, as the swarm saw it. CPU per round (utime + stime from /proc)
# is counted for the server (every process of the salt-master) and for the swarm. Prints both medians and the ratio.
# Usage: bench/salt-compare.sh [MINIONS ROUNDS WARMUP]      (default 1000 15 3)
#   DROVER_HOME: a built distribution (default dist/target/drover; build it with bench/build.sh's ./mvnw install)
#   SALT_GIT or SALT_SRC: where the Salt v3006.0 source comes from (see bench/salt-master.sh)
#   PROCS: swarm processes (default nproc); KEYS: the minions' RSA key cache (default ~/.cache/salt-swarm-keys;
#   the first run makes a key per minion, ~0.35 s each); WORK (default /tmp/drover-salt-compare);
#   ONLY=drover or ONLY=salt runs one side; RETURNS=each: the swarm writes every return as soon as it is made, not
#   the returns of one wake-up of its loop together (burst, the default; docs/benchmarks.md has both); SALT_CLI (default 3): after Salt's rounds, `salt '*' test.ping` is timed
#   that often (what a Salt user waits for: the CLI's start-up included). Ports: 18093, 14505 and 14506 (Drover),
#   24505 and 24506 (Salt).
# Measure with nothing else running (here: flock /work/build.lock bench/salt-compare.sh). Figures: docs/benchmarks.md.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
minions=${1:-1000}; rounds=${2:-15}; warmup=${3:-3}
procs=${PROCS:-$(nproc)}
work=${WORK:-/tmp/drover-salt-compare}
keys=${KEYS:-$HOME/.cache/salt-swarm-keys}
drover_home=${DROVER_HOME:-$root/dist/target/drover}
py=/usr/bin/python3
"$root/bench/swarm/requirements.sh"
mkdir -p "$work"
rm -rf "$work/drover" "$work/salt/root" "$work"/*.json "$work"/*.log
server=""; swarm=""
for port in 18093 14505 14506 24505 24506; do
  if $py -c "import socket, sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
    echo "port $port is in use: stop what listens there first"; exit 2
  fi
done
trap 'kill $swarm $server 2>/dev/null || true' EXIT

# Runs the swarm against the master on 127.0.0.1:$1 and the driver with the remaining arguments; $2 names the side.
measure() {
  port=$1; side=$2; shift 2
  $py "$root/bench/swarm/drive.py" --expect "$minions" --rounds "$rounds" --warmup "$warmup" \
    --report "ipc://$work/report.ipc" --summary "$work/$side.json" "$@" > "$work/$side-drive.log" 2>&1 &
  driver=$!
  sleep 0.5
  $py "$root/bench/swarm/swarm.py" --master 127.0.0.1 --ret-port "$port" --count "$minions" --procs "$procs" \
    --keys "$keys" --report "ipc://$work/report.ipc" --start-event --returns "${RETURNS:-burst}" > "$work/$side-swarm.log" 2>&1 &
  swarm=$!
  wait $driver || { echo "$side: the driver failed:"; tail -n 5 "$work/$side-drive.log" "$work/$side-swarm.log"; exit 1; }
  [ "$side" = salt ] && salt_cli
  kill $swarm; wait $swarm 2>/dev/null || true; swarm=""
  echo "== $side"; grep -v '^warm-up\|^round' "$work/$side-drive.log"
  [ "$side" = salt ] && cat "$work/salt-cli.log"
  return 0
}

# What a Salt user sees: `salt '*' test.ping` (the CLI's start-up, publish, and waiting for the returns) SALT_CLI times.
salt_cli() {
  : > "$work/salt-cli.log"
  i=0
  while [ "$i" -lt "${SALT_CLI:-3}" ]; do
    t0=$(date +%s.%N)
    n=$(PYTHONPATH="$work/salt/src:$work/salt/shim" PYTHONWARNINGS=ignore $py "$work/salt/src/scripts/salt" \
      -c "$work/salt/conf" --timeout 30 --out txt '*' test.ping 2>/dev/null | grep -c ': True$' || true)
    t1=$(date +%s.%N)
    echo "salt '*' test.ping (the CLI): $n/$minions True in $(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}') s" \
      >> "$work/salt-cli.log"
    i=$((i + 1))
  done
}

if [ "${ONLY:-drover}" = drover ]; then
  [ -x "$drover_home/bin/drover" ] || { echo "no Drover distribution at $drover_home (set DROVER_HOME)"; exit 2; }
  . "$root/.ci/java-home"
  DROVER_SERVER_OPTS="-Xmx1g ${BENCH_SERVER_OPTS:-}" "$drover_home/bin/drover" server --port 18093 \
    --data-dir "$work/drover" --auto-accept '*' --salt-publish-port 14505 --salt-request-port 14506 \
    > "$work/drover-server.log" 2>&1 &
  server=$!
  until [ -f "$work/drover/admin.token" ] && curl -sf http://127.0.0.1:18093/readyz >/dev/null; do
    kill -0 $server 2>/dev/null || { echo "the Drover server failed to start:"; tail -n 5 "$work/drover-server.log"; exit 1; }
    sleep 1
  done
  measure 14506 drover --drover http://127.0.0.1:18093 --token-file "$work/drover/admin.token" --server-pid $server
  kill $server; wait $server 2>/dev/null || true; server=""
fi

if [ "${ONLY:-salt}" = salt ]; then
  SALT_PUBLISH_PORT=24505 SALT_RET_PORT=24506 "$root/bench/salt-master.sh" "$work" > "$work/salt-master.log"
  server=$(sed -n 's/^salt-master pid //p' "$work/salt-master.log")
  measure 24506 salt --salt 127.0.0.1:24506 --root-key "$work/salt/root/var/cache/salt/master/.$(id -un)_key" \
    --server-pid "$server"
  kill $server; while kill -0 $server 2>/dev/null; do sleep 0.5; done; server=""
fi

if [ -z "${ONLY:-}" ]; then
  $py - "$work/drover.json" "$work/salt.json" <<'PY'
import json, sys
d, s = (json.load(open(p)) for p in sys.argv[1:])
print(f"test.ping to {d['minions']} minions, median of {d['rounds']} rounds: Drover {d['median_s']:.3f} s, "
      f"salt-master 3006.0 {s['median_s']:.3f} s: Drover {s['median_s'] / d['median_s']:.1f}x faster")
print(f"server CPU per round: Drover {d['server_cpu_per_round_s']:.2f} s, salt-master {s['server_cpu_per_round_s']:.2f} s "
      f"({s['server_cpu_per_round_s'] / max(d['server_cpu_per_round_s'], 1e-9):.1f}x)")
print(f"swarm CPU per round: {d['swarm_cpu_per_round_s']:.2f} s against Drover, {s['swarm_cpu_per_round_s']:.2f} s against Salt")
print(f"other processes on the machine during the rounds: {d['other_processes_cores']:.2f} cores (Drover's), "
      f"{s['other_processes_cores']:.2f} cores (Salt's)")
PY
fi

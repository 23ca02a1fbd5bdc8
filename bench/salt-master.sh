#!/bin/sh
# Prepares and starts a real salt-master 3006.0 from source on /usr/bin/python3 with Debian's packages, for the Salt
# comparison (bench/salt-compare.sh). Salt itself is not packaged by Debian 12 and PyPI may be out of reach, so the
# source comes from a git repository holding the tag v3006.0: a clone of https://github.com/saltstack/salt (or the
# openSUSE/salt fork), given as SALT_GIT (its .git directory or a bare repository); only salt/ and scripts/ are
# extracted. SALT_SRC instead names an already extracted tree (with salt/ and scripts/).
# Usage: bench/salt-master.sh WORK_DIR            prepare WORK_DIR/salt (source, shim, config) and start the master
#   Prints "salt-master pid PID" once the request port answers; the master runs until that pid is killed.
#   SALT_PUBLISH_PORT (24505), SALT_RET_PORT (24506): the master's ports (not 4505/4506, so a Drover or a salt-master
#   of someone else on the machine is not disturbed); SALT_WORKER_THREADS (5, Salt's default: MWorker processes).
#   The master: interface 127.0.0.1, auto_accept True, everything else Salt's defaults (job cache on disk included).
set -e
work=${1:?usage: bench/salt-master.sh WORK_DIR}
py=/usr/bin/python3
base="$work/salt"
src=${SALT_SRC:-$base/src}
mkdir -p "$base"

# Debian's packages (Salt 3006 prefers the Cryptodome namespace, which Debian's python3-pycryptodome installs)
if ! $py -c 'import zmq, msgpack, Cryptodome, jinja2, yaml, tornado, psutil, distro, packaging, requests, jmespath, setproctitle, dateutil, croniter' 2>/dev/null; then
  apt-get install -y --no-install-recommends python3-zmq python3-msgpack python3-pycryptodome python3-jinja2 \
    python3-markupsafe python3-yaml python3-tornado python3-psutil python3-distro python3-packaging python3-requests \
    python3-jmespath python3-setproctitle python3-dateutil python3-croniter >/dev/null
fi

if [ ! -f "$src/salt/__init__.py" ]; then
  [ -n "${SALT_GIT:-}" ] || { echo "set SALT_GIT to a git repository of Salt with the tag v3006.0 (or SALT_SRC)" >&2; exit 2; }
  mkdir -p "$src"
  # a path-limited archive: snapshots that lack the largest doc blobs still have all of salt/ and scripts/
  git --git-dir="$SALT_GIT" archive v3006.0 salt scripts 2>"$base/archive.err" | tar -x -C "$src"
  [ -f "$src/salt/__init__.py" ] || { echo "no salt/ at v3006.0 in $SALT_GIT:" >&2; cat "$base/archive.err" >&2; exit 1; }
  echo 3006.0 > "$src/salt/_version.txt"  # without it the tree calls itself 3007.0
fi
# Salt 3006 imports looseversion (not packaged by Debian 12); Python 3.11's distutils has the same class
mkdir -p "$base/shim"
[ -f "$base/shim/looseversion.py" ] || cat > "$base/shim/looseversion.py" <<'SHIM'
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from distutils.version import LooseVersion
SHIM

user=$(id -un)
mkdir -p "$base/conf" "$base/root"
cat > "$base/conf/master" <<CONF
interface: 127.0.0.1
publish_port: ${SALT_PUBLISH_PORT:-24505}
ret_port: ${SALT_RET_PORT:-24506}
root_dir: $base/root
user: $user
auto_accept: True
worker_threads: ${SALT_WORKER_THREADS:-5}
log_level: warning
log_level_logfile: warning
CONF

PYTHONPATH="$src:$base/shim" PYTHONWARNINGS=ignore nohup $py "$src/scripts/salt-master" -c "$base/conf" \
  > "$base/master.out" 2>&1 &
pid=$!
until $py - "${SALT_RET_PORT:-24506}" <<'PING' 2>/dev/null
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
PING
do
  kill -0 "$pid" 2>/dev/null || { echo "the salt-master failed to start:" >&2; tail -20 "$base/master.out" >&2; exit 1; }
  sleep 1
done
until [ -f "$base/root/var/cache/salt/master/.${user}_key" ]; do sleep 0.5; done
echo "salt-master pid $pid"

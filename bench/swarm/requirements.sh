#!/bin/sh
# Installs what the swarm needs from Debian's packages (for /usr/bin/python3): pyzmq, msgpack and pycryptodome (Debian
# builds it as the Cryptodome namespace). Does nothing when they are already importable.
# Usage: bench/swarm/requirements.sh
set -e
/usr/bin/python3 -c 'import zmq, msgpack, Cryptodome' 2>/dev/null && exit 0
apt-get install -y --no-install-recommends python3-zmq python3-msgpack python3-pycryptodome >/dev/null ||
  { apt-get update >/dev/null && apt-get install -y --no-install-recommends python3-zmq python3-msgpack python3-pycryptodome >/dev/null; }

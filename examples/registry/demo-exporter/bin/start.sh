#!/bin/sh
# Starts the exporter in the background: serves etc/*.yaml on the port of the main config. Returns once it listens.
cd "$(dirname "$0")/.." || exit 1
port=$(sed -n 's/^listen: "\{0,1\}\([0-9]*\)"\{0,1\}$/\1/p' etc/*.yaml | head -n 1)
[ -n "$port" ] || { echo "no listen port in etc/" >&2; exit 1; }
rm -f ready
nohup "${JAVA_HOME:-/usr}/bin/java" -Xmx16m -XX:TieredStopAtLevel=1 bin/DemoExporter.java "$port" etc >exporter.log 2>&1 &
echo $! > demo-exporter.pid
i=0
while [ ! -f ready ]; do
  i=$((i + 1))
  if [ "$i" -gt 150 ] || ! kill -0 "$(cat demo-exporter.pid)" 2>/dev/null; then
    echo "demo-exporter did not start listening on $port:" >&2
    tail -n 5 exporter.log >&2
    exit 1
  fi
  sleep 0.2
done

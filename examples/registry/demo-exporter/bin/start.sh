#!/bin/sh
# Starts the exporter in the background: serves etc/*.yaml on the port of the main config.
cd "$(dirname "$0")/.." || exit 1
port=$(sed -n 's/^listen: "\{0,1\}\([0-9]*\)"\{0,1\}$/\1/p' etc/*.yaml | head -n 1)
[ -n "$port" ] || { echo "no listen port in etc/" >&2; exit 1; }
nohup "${JAVA_HOME:-/usr}/bin/java" -Xmx16m bin/DemoExporter.java "$port" etc >exporter.log 2>&1 &
echo $! > exporter.pid

#!/bin/sh
# Builds the server's ahead-of-time cache, lib/server.aot, by running the training workload (io.drover.dist.AotTraining)
# with the distribution's own class path: JDK 25 and newer (JEP 514/515: classes loaded and linked, method profiles).
# Older JDKs skip it; the launcher then starts the server without a cache. Usage: aot-cache.sh DISTRIBUTION_DIR JAVA
set -e
dist=$1; java=$2
major=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n 1)
if [ "${major:-0}" -lt 25 ] 2>/dev/null; then
  echo "drover: Java $major builds no AOT cache for the server (it needs 25 or newer); the server starts without one"
  exit 0
fi
rm -f "$dist/lib/server.aot"
log="$dist/../aot-training.log"
# the same class path string the launcher gives the server: the cache is valid only for it
if ! "$java" -XX:AOTCacheOutput="$dist/lib/server.aot" -Xlog:aot=error -Xmx1g --enable-native-access=ALL-UNNAMED -cp "$dist/lib/*" io.drover.dist.AotTraining > "$log" 2>&1; then
  echo "drover: training the server's AOT cache failed (the server starts without one); see $log" >&2
  tail -n 5 "$log" >&2
  rm -f "$dist/lib/server.aot"
  exit 0
fi
grep 'AOT training:' "$log" || true

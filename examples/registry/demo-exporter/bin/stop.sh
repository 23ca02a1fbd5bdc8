#!/bin/sh
cd "$(dirname "$0")/.." || exit 1
[ -f exporter.pid ] && kill "$(cat exporter.pid)" 2>/dev/null
rm -f exporter.pid
exit 0

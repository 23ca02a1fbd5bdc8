#!/bin/sh
cd "$(dirname "$0")/.." || exit 1
[ -f demo-exporter.pid ] && kill "$(cat demo-exporter.pid)" 2>/dev/null
rm -f demo-exporter.pid
exit 0

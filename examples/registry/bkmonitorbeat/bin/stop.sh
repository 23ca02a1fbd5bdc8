#!/bin/sh
cd "$(dirname "$0")/.." || exit 1
[ -f bkmonitorbeat.pid ] && kill "$(cat bkmonitorbeat.pid)" 2>/dev/null
rm -f bkmonitorbeat.pid
exit 0

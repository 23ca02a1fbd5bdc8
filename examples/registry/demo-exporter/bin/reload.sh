#!/bin/sh
# The exporter reads its config on every request; reloading only records when it happened.
cd "$(dirname "$0")/.." || exit 1
date +%s > reloaded_at

#!/bin/sh
cd "$(dirname "$0")/.." || exit 1
date +%s > reloaded_at

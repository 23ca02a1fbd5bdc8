#!/bin/sh
# Builds the web console with this machine's node and npm, from the committed lockfile; the Maven build of the
# server runs it so that the server jar carries the console.
#   ui/build.sh OUT_DIR   build into OUT_DIR (skipped when nothing changed since the last build there)
#   ui/build.sh --test    run the component tests (Vitest)
set -e
ui=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "drover: building the web console needs node 18+ and npm on the PATH, and there is none (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
cd "$ui"
# npm ci only when the lockfile changed since the last install
if [ ! -f node_modules/.drover-lock ] || ! cmp -s package-lock.json node_modules/.drover-lock; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.drover-lock
fi
if [ "$1" = "--test" ]; then
  exec npm run --silent test
fi
out=${1:?usage: ui/build.sh OUT_DIR | --test}
if [ -f "$out/files.txt" ] && [ -z "$(find src index.html package-lock.json vite.config.ts tsconfig.json eslint.config.js -newer "$out/files.txt" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
DROVER_UI_OUT="$out" npm run --silent build
(cd "$out" && find . -type f ! -name files.txt | sed 's|^\./||' | sort > files.txt)

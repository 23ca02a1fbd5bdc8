# shared shell helpers
log() { printf "%s %s\n" "$(date +%FT%T)" "$*"; }

#!/usr/bin/env bash
# gpucost-textfile.sh: `gpucost analyze --format prom` over the last GPUCOST_PROM_WINDOW seconds
# (default 900) of the node's logs into node_exporter's textfile directory. gpucost writes a
# temporary file beside the target and renames it, so node_exporter never reads half a file (it
# only reads *.prom). Run by gpucost-textfile.timer.
set -u
conf=${GPUCOST_CONFIG:-/etc/default/gpucost}
# shellcheck source=/dev/null
[ -r "$conf" ] && . "$conf"
bin=${GPUCOST_BIN:-/usr/bin/gpucost}
logs=${GPUCOST_LOG_DIR:-/var/log/gpucost/samples}
textfile=${GPUCOST_TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
window=${GPUCOST_PROM_WINDOW:-900}
since=$(date -u -d "@$(($(date +%s) - window))" +%Y-%m-%dT%H:%M:%SZ)
mkdir -p "$textfile" || exit 1
# shellcheck disable=SC2086  # GPUCOST_ANALYZE_ARGS holds several arguments
exec "$bin" analyze "$logs" --since "$since" --format prom --no-timings -q ${GPUCOST_ANALYZE_ARGS:-} \
  -o "$textfile/gpucost.prom"

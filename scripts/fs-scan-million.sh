#!/usr/bin/env bash
# Measures `idem scan` on a large filesystem store: wall time, peak RSS, and the bytes the scan read
# (rchar), which shows that objects a CREATED record vouches for are not read again (hashing them
# would read every object's bytes).
#
#   scripts/fs-scan-million.sh [KEYS] [OBJECT_BYTES] [DIR]    default 1000000 keys of 1024 bytes in /var/tmp
#
# The store is filled once by scripts/FsScanStore.java (through FsObjectStore itself, fsync skipped)
# and kept at DIR/idem-fs-KEYS for later runs; every 97th key is divergent. Output: a markdown row.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
keys="${1:-1000000}"
size="${2:-1024}"
dir="${3:-/var/tmp}"
store="$dir/idem-fs-$keys"

cd "$root"
jar="cli/target/idem-cli.jar"
if [ ! -f "$jar" ]; then
  ./mvnw -q -B -DskipTests package -pl cli -am >&2
fi
cp="cli/target/lib/idem-core-0.1.0-SNAPSHOT.jar:cli/target/lib/idem-store-fs-0.1.0-SNAPSHOT.jar"
if [ ! -d "$store/_idem" ]; then
  start="$(date +%s)"
  classes="$(mktemp -d)"
  javac -d "$classes" -cp "$cp" scripts/FsScanStore.java
  java -cp "$classes:$cp" dev.idem.store.fs.FsScanStore "$store" "$keys" "$size" >&2
  rm -rf "$classes"
  echo "filled $store with $keys keys in $(( $(date +%s) - start )) s" >&2
fi

out="$(mktemp)"
err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
start="$(date +%s%N)"
/usr/bin/time -f '%M' -o "$err.rss" java -jar "$jar" scan --store "file:$store" >"$out" 2>"$err" &
time_pid=$!
# The JVM is time's child; read its I/O counters until it exits (the last read is at most 0.2 s old).
rchar=0
while kill -0 "$time_pid" 2>/dev/null; do
  jvm="$(pgrep -P "$time_pid" java || true)"
  if [ -n "$jvm" ] && [ -r "/proc/$jvm/io" ]; then
    r="$(awk '/^rchar/ {print $2}' "/proc/$jvm/io" 2>/dev/null || true)"
    [ -n "$r" ] && rchar="$r"
  fi
  sleep 0.2
done
wait "$time_pid" || true
end="$(date +%s%N)"
divergent="$(grep -c '^DIVERGENT' "$out" || true)"
expected=$(( (keys + 96) / 97 ))
if [ "$divergent" -ne "$expected" ]; then
  echo "the scan found $divergent divergent keys, the store holds $expected" >&2
  tail -3 "$err" >&2
  exit 1
fi
wall="$(echo "scale=1; ($end - $start) / 1000000000" | bc)"
echo "| $keys | $size | $wall | $(( $(tail -n 1 "$err.rss") / 1024 )) | $(( rchar / 1048576 )) | $(( keys * size / 1048576 )) | $divergent |"
rm -f "$err.rss"

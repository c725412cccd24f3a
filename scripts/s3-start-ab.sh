#!/usr/bin/env bash
# What an S3 command costs before its listing grows: two self-contained distributions, side by side,
# each running `idem scan` of a 100-key bucket served on loopback with no latency (so the time is the
# JVM start, the command line, opening the S3 store and its HTTP clients, and a few requests), in
# interleaved rounds so load on the machine hits both alike. Prints the median, min and max wall and
# CPU (user+sys) seconds of each.
#
#   scripts/s3-start-ab.sh DIST_A DIST_B [ROUNDS]
#
# DIST_A and DIST_B are unpacked distributions (`-Pdist` builds of two commits, e.g. one from a
# `git archive` of the earlier commit); ROUNDS defaults to 15. Needs GNU time (/usr/bin/time) and a
# `java` on PATH for the listing server (scripts/VersionListingServer.java), which is started on a free
# 127.0.0.1 port and stopped on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
a="${1:?usage: scripts/s3-start-ab.sh DIST_A DIST_B [ROUNDS]}"
b="${2:?usage: scripts/s3-start-ab.sh DIST_A DIST_B [ROUNDS]}"
rounds="${3:-15}"
for d in "$a" "$b"; do
  [ -x "$d/bin/idem" ] || { echo "s3-start-ab: $d/bin/idem is missing; give an unpacked distribution" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "s3-start-ab: needs GNU time (apt-get install time)" >&2; exit 2; }
work="$(mktemp -d)"
export AWS_ACCESS_KEY_ID=startbench AWS_SECRET_ACCESS_KEY=startbench-secret AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
java "$root/scripts/VersionListingServer.java" "$work/port" 100 1 97 0 > "$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "s3-start-ab: the listing server did not start: $(cat "$work/server.log")" >&2; exit 1; }
export AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$work/port")"
for r in $(seq 1 "$rounds"); do
  for d in "$a" "$b"; do
    rc=0
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$d/bin/idem" scan --store s3://scanbench --prefix exports/ \
      > "$work/out" 2> "$work/err" || rc=$?
    # Exit 1 is the scan's verdict on the divergent keys the server plants; anything else is a failure.
    [ "$rc" -le 1 ] || { echo "s3-start-ab: $d exited $rc: $(tail -n 1 "$work/err")" >&2; exit 1; }
    echo "$d $(tail -n 1 "$work/t")" >> "$work/times"
  done
done
echo "$rounds interleaved rounds, load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for d in "$a" "$b"; do
  awk -v d="$d" '$1 == d {print $2}' "$work/times" | sort -n \
    | awk -v d="$d" '{x[NR]=$1} END {printf "%s\n  wall s: median %s, min %s, max %s\n", d, x[int((NR+1)/2)], x[1], x[NR]}'
  awk -v d="$d" '$1 == d {print $3 + $4}' "$work/times" | sort -n \
    | awk '{x[NR]=$1} END {printf "  CPU s:  median %s, min %s, max %s\n", x[int((NR+1)/2)], x[1], x[NR]}'
done

#!/usr/bin/env bash
# Measures `idem scan` against the reference divergence scan (AWS CLI + jq, from the design's source
# article) on the same versioned bucket history, served on loopback with an S3-like per-request latency,
# side by side in one run.
#
#   scripts/scan-vs-reference.sh [SCALES] [LATENCIES_MS] [RUNS]
#     SCALES        space-separated KEYSxVERSIONS      default "20000x5" (100,000 versions)
#     LATENCIES_MS  space-separated per-request waits  default "20 50 100"
#     RUNS          runs per cell, median reported     default 3
#   REF_MAX_VERSIONS=N  skip the reference above N versions (it holds the whole listing as JSON in
#                       memory, twice, and parses it in Python): say so in the table (default: never skip)
#   LIST_PARALLELISM=N  idem scan --list-parallelism (default 16, the command's default)
#   IDEM_JAR=PATH       the idem jar to time (default cli/target/idem-cli.jar, built when missing)
#   IDEM_DIST=DIR       time the self-contained distribution's bin/idem instead (an unpacked
#                       `-Pdist` build: its own runtime and AOT cache), what the archive and image ship
#   BASELINE_JAR=PATH   also time this other idem jar (an older build, its lib/ beside it) in the same
#                       runs, interleaved, with the same check of its DIVERGENT lines; two more columns
#   BASELINE_DIST=DIR   the same with another unpacked distribution's bin/idem (an older commit's `-Pdist`
#                       build), so two shipped builds are compared like for like; set at most one of
#                       BASELINE_JAR and BASELINE_DIST
#
# Both scans must report the same divergent keys; the script fails otherwise. It installs awscli, jq
# and GNU time from Debian's packages when missing, starts the listing server
# (scripts/VersionListingServer.java) on a free 127.0.0.1 port per cell and stops it on exit. Output: a
# markdown table on stdout (medians of RUNS runs, ratio, peak RSS).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scales="${1:-20000x5}"
latencies="${2:-20 50 100}"
runs="${3:-3}"
ref_max="${REF_MAX_VERSIONS:-0}"
parallelism="${LIST_PARALLELISM:-16}"
diverge_every=97

need=()
command -v aws >/dev/null || need+=(awscli)
command -v jq >/dev/null || need+=(jq)
[ -x /usr/bin/time ] || need+=(time)
command -v bc >/dev/null || need+=(bc)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} ..." >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

cd "$root"
jar="${IDEM_JAR:-cli/target/idem-cli.jar}"
dist="${IDEM_DIST:-}"
baseline="${BASELINE_JAR:-}"
baseline_dist="${BASELINE_DIST:-}"
if [ -n "$baseline" ] && [ -n "$baseline_dist" ]; then
  echo "scan-vs-reference: set BASELINE_JAR or BASELINE_DIST, not both" >&2
  exit 2
fi
if [ -n "$baseline_dist" ]; then
  [ -x "$baseline_dist/bin/idem" ] || { echo "scan-vs-reference: no distribution at $baseline_dist (BASELINE_DIST)" >&2; exit 2; }
  baseline="$baseline_dist"
fi
if [ -n "$dist" ] && [ ! -x "$dist/bin/idem" ]; then
  echo "scan-vs-reference: no distribution at $dist (IDEM_DIST)" >&2
  exit 2
fi
if [ -z "$dist" ] && [ ! -f "$jar" ]; then
  ./mvnw -q -B -DskipTests package -pl cli -am >&2
fi

work="$(mktemp -d)"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT

bucket=scanbench
prefix=exports/
export AWS_ACCESS_KEY_ID=scanbench AWS_SECRET_ACCESS_KEY=scanbench-secret AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

# The reference scan (scripts/detect_divergence.sh), run as the design's source article gives it.
cp "$(dirname "$0")/detect_divergence.sh" "$work/detect_divergence.sh"
chmod +x "$work/detect_divergence.sh"

ref() { PATH="$work/bin:$PATH" "$work/detect_divergence.sh" "$bucket" "$prefix"; }
idem_scan() {
  if [ -n "$dist" ]; then
    "$dist/bin/idem" scan --store "s3://$bucket" --prefix "$prefix" --list-parallelism "$parallelism"
  else
    java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$jar" scan --store "s3://$bucket" --prefix "$prefix" \
      --list-parallelism "$parallelism"
  fi
}

# One timed run: wall seconds and peak RSS (KiB), output kept for the comparison.
timed() { # name
  local name="$1" start end
  start="$(date +%s%N)"
  /usr/bin/time -f '%M' -o "$work/$name.rss" bash -c "$name" >"$work/$name.out" 2>"$work/$name.err" || true
  end="$(date +%s%N)"
  echo "scale=3; ($end - $start) / 1000000000" | bc
  tail -n 1 "$work/$name.rss" > "$work/$name.rss.tmp" && mv "$work/$name.rss.tmp" "$work/$name.rss"
}
baseline_scan() {
  if [ -n "$baseline_dist" ]; then
    "$baseline_dist/bin/idem" scan --store "s3://$bucket" --prefix "$prefix" --list-parallelism "$parallelism"
  else
    java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$baseline" scan --store "s3://$bucket" --prefix "$prefix" \
      --list-parallelism "$parallelism"
  fi
}
export -f ref idem_scan baseline_scan
export work bucket prefix jar dist baseline baseline_dist parallelism

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

rows=()
for scale in $scales; do
  keys="${scale%x*}"
  versions="${scale#*x}"
  total=$((keys * versions))
  for latency in $latencies; do
    rm -f "$work/port"
    java scripts/VersionListingServer.java "$work/port" "$keys" "$versions" "$diverge_every" "$latency" \
      >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
    endpoint="http://127.0.0.1:$(cat "$work/port")"
    export AWS_ENDPOINT_URL="$endpoint"
    # The reference scan calls plain `aws`; this awscli predates AWS_ENDPOINT_URL, so a shim adds it.
    mkdir -p "$work/bin"
    printf '#!/bin/sh\nexec %s --endpoint-url %s "$@"\n' "$(command -v aws)" "$endpoint" > "$work/bin/aws"
    chmod +x "$work/bin/aws"

    skip_ref=false
    if [ "$ref_max" -gt 0 ] && [ "$total" -gt "$ref_max" ]; then skip_ref=true; fi
    t_ref=()
    t_idem=()
    t_base=()
    for i in $(seq 1 "$runs"); do
      last_ref=skipped
      if ! $skip_ref; then
        last_ref="$(timed ref)"
        t_ref+=("$last_ref")
      fi
      t_idem+=("$(timed idem_scan)")
      last_base=""
      if [ -n "$baseline" ]; then
        t_base+=("$(timed baseline_scan)")
        last_base=", baseline ${t_base[-1]} s"
      fi
      echo "$total versions, ${latency} ms: run $i: reference $last_ref s, idem ${t_idem[-1]} s$last_base" >&2
    done
    stop_server

    divergent="$(grep -c '^DIVERGENT' "$work/idem_scan.out" || true)"
    expected=$(( (keys + diverge_every - 1) / diverge_every ))
    if [ "$divergent" -ne "$expected" ]; then
      echo "idem found $divergent divergent keys, the bucket holds $expected:" >&2
      tail -5 "$work/idem_scan.err" >&2
      exit 1
    fi
    m_idem="$(median "${t_idem[@]}")"
    rss_idem=$(( $(cat "$work/idem_scan.rss") / 1024 ))
    base_cols=""
    if [ -n "$baseline" ]; then
      if ! diff <(sort "$work/baseline_scan.out") <(sort "$work/idem_scan.out") >"$work/diff"; then
        echo "idem and the baseline jar disagree at $total versions, $latency ms:" >&2
        head -20 "$work/diff" >&2
        exit 1
      fi
      m_base="$(median "${t_base[@]}")"
      base_cols=" $m_base | $(echo "scale=2; $m_base / $m_idem" | bc) |"
    fi
    if $skip_ref; then
      rows+=("| $total | $keys | $latency | skipped (REF_MAX_VERSIONS=$ref_max) | | $m_idem | $rss_idem | | $divergent |$base_cols")
    else
      # Same divergent keys, same reference lines.
      if ! diff <(sort "$work/ref.out") <(sort "$work/idem_scan.out") >"$work/diff"; then
        echo "the two scans disagree at $total versions, $latency ms:" >&2
        head -20 "$work/diff" >&2
        exit 1
      fi
      m_ref="$(median "${t_ref[@]}")"
      rows+=("| $total | $keys | $latency | $m_ref | $(( $(cat "$work/ref.rss") / 1024 )) | $m_idem | $rss_idem | $(echo "scale=1; $m_ref / $m_idem" | bc) | $divergent (same lines) |$base_cols")
    fi
  done
done

head_extra=""
rule_extra=""
if [ -n "$baseline" ]; then
  head_extra=" baseline idem wall (s) | baseline / idem |"
  rule_extra="---:|---:|"
fi
cat <<TABLE
| versions | keys | latency per request (ms) | reference wall (s) | reference peak RSS (MiB) | idem wall (s) | idem peak RSS (MiB) | reference / idem | divergent keys |$head_extra
|---:|---:|---:|---:|---:|---:|---:|---:|---|$rule_extra
$(printf '%s\n' "${rows[@]}")

Median of $runs runs per cell; reference: aws s3api list-object-versions + jq; idem: $( [ -n "$dist" ] && echo "$dist/bin/idem (its runtime and AOT cache) scan --prefix $prefix --list-parallelism $parallelism" || echo "java -jar idem-cli.jar scan --prefix $prefix --list-parallelism $parallelism (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)")$( [ -n "$baseline" ] && echo "; baseline: $baseline, the same command")$( [ -n "${IDEM_JAR:-}" ] && echo "; idem jar: $jar").
Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1); load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -n1); $(aws --version 2>&1); $(jq --version)
TABLE

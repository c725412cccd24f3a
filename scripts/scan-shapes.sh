#!/usr/bin/env bash
# Measures `idem scan` against the reference divergence scan (the reference detect_divergence.sh, AWS CLI
# + jq, run verbatim) on each bucket shape of the named corpus (scripts/VersionListingServer.java,
# Shapes), served on loopback with a per-request latency, side by side in one run, and counts on the
# server what each asked for: ListObjectVersions requests, the entries they held, HEADs.
#
#   scripts/scan-shapes.sh [SHAPES] [KEYSxVERSIONS] [LATENCY_MS] [RUNS]
#     SHAPES        space-separated corpus names       default: all eight
#     KEYSxVERSIONS keys and versions per key          default 20000x5 (100,000 versions)
#     LATENCY_MS    wait before every reply            default 50
#     RUNS          runs per side, median reported     default 1
#   REF_MAX_VERSIONS=N  skip the reference above N versions (it holds the whole listing as JSON, twice)
#   LIST_PARALLELISM=N  idem scan --list-parallelism (default 16, the command's default)
#   IDEM_JAR=PATH       the idem jar to time (default cli/target/idem-cli.jar, built when missing)
#
# Both scans must print the same DIVERGENT lines (the reference's keys carry the data/ prefix, which
# idem's store location holds); the script fails otherwise. Installs awscli, jq, GNU time, bc and curl
# from Debian's packages when missing; starts the server per shape on a free 127.0.0.1 port and stops
# it. Output: a markdown table on stdout.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shapes="${1:-legacy-jobs stopped-5keys stopped-1key live-mixed sparse-backfilled one-directory flat deep-unicode}"
scale="${2:-20000x5}"
latency="${3:-50}"
runs="${4:-1}"
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
if [ ! -f "$jar" ]; then
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
export AWS_ACCESS_KEY_ID=scanbench AWS_SECRET_ACCESS_KEY=scanbench-secret AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

# The reference scan (scripts/detect_divergence.sh), run as the design's source article gives it.
cp "$(dirname "$0")/detect_divergence.sh" "$work/detect_divergence.sh"
chmod +x "$work/detect_divergence.sh"

ref() { PATH="$work/bin:$PATH" "$work/detect_divergence.sh" "$bucket" data/; }
idem_scan() {
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$jar" scan --store "s3://$bucket/data" \
    --list-parallelism "$parallelism"
}
export -f ref idem_scan
export work bucket jar parallelism

# One timed run: wall seconds, peak RSS (KiB) in $work/NAME.rss, and what the server was asked in
# $work/NAME.asked ("listings entries heads").
timed() { # name
  local name="$1" start end before after
  before="$(curl -s "$endpoint/_counts")"
  start="$(date +%s%N)"
  /usr/bin/time -f '%M' -o "$work/$name.rss" bash -c "$name" >"$work/$name.out" 2>"$work/$name.err" || true
  end="$(date +%s%N)"
  after="$(curl -s "$endpoint/_counts")"
  paste -d' ' <(echo "$after" | tr ' ' '\n') <(echo "$before" | tr ' ' '\n') | awk '{printf "%d ", $1 - $2}' \
    > "$work/$name.asked"
  echo "scale=2; ($end - $start) / 1000000000" | bc
  tail -n 1 "$work/$name.rss" > "$work/$name.rss.tmp" && mv "$work/$name.rss.tmp" "$work/$name.rss"
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

keys="${scale%x*}"
versions="${scale#*x}"
total=$((keys * versions))
rows=()
for shape in $shapes; do
  rm -f "$work/port"
  java -Xmx2g scripts/VersionListingServer.java "$work/port" "$keys" "$versions" "$diverge_every" "$latency" \
    "$shape" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.2; done
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
  for i in $(seq 1 "$runs"); do
    last_ref=skipped
    if ! $skip_ref; then
      last_ref="$(timed ref)"
      t_ref+=("$last_ref")
    fi
    t_idem+=("$(timed idem_scan)")
    echo "$shape, $total versions, ${latency} ms: run $i: reference $last_ref s, idem ${t_idem[-1]} s" >&2
  done
  stop_server

  divergent="$(grep -c '^DIVERGENT' "$work/idem_scan.out" || true)"
  read -r i_list i_entries i_heads < "$work/idem_scan.asked" || true
  m_idem="$(median "${t_idem[@]}")"
  rss_idem=$(( $(cat "$work/idem_scan.rss") / 1024 ))
  if $skip_ref; then
    rows+=("| $shape | $total | skipped | $m_idem | | – / $i_list | – / $i_entries | $i_heads | – / $rss_idem | $divergent |")
  else
    if ! diff <(sed 's|^DIVERGENT data/|DIVERGENT |' "$work/ref.out" | grep '^DIVERGENT' | sort) \
        <(grep '^DIVERGENT' "$work/idem_scan.out" | sort) >"$work/diff"; then
      echo "the two scans disagree on $shape:" >&2
      head -20 "$work/diff" >&2
      tail -5 "$work/idem_scan.err" >&2
      exit 1
    fi
    read -r r_list r_entries r_heads < "$work/ref.asked" || true
    m_ref="$(median "${t_ref[@]}")"
    rows+=("| $shape | $total | $m_ref | $m_idem | $(echo "scale=1; $m_ref / $m_idem" | bc) | $r_list / $i_list | $r_entries / $i_entries | $i_heads | $(( $(cat "$work/ref.rss") / 1024 )) / $rss_idem | $divergent (same lines) |")
  fi
done

cat <<TABLE
| shape | versions | script (s) | idem (s) | script / idem | list requests (script / idem) | entries read (script / idem) | idem HEADs | peak RSS MiB (script / idem) | divergent keys |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
$(printf '%s\n' "${rows[@]}")

$scale keys x versions, ${latency} ms before every reply, median of $runs run(s) per side; script: the reference detect_divergence.sh (aws s3api list-object-versions + jq) with prefix data/; idem: java -jar $jar scan --store s3://$bucket/data --list-parallelism $parallelism (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC); requests and entries counted by the server.
Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1); load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -n1); $(aws --version 2>&1); $(jq --version)
TABLE

#!/usr/bin/env bash
# Measures `idem scan` against the reference divergence scan (AWS CLI + jq, from the design's source
# article) on the same versioned bucket history, served on loopback, side by side in one run.
#
#   scripts/scan-vs-reference.sh [KEYS] [VERSIONS] [RUNS]     (default 20000 keys x 5 versions, 3 runs)
#
# Both scans must report the same divergent keys; the script fails otherwise. It installs awscli, jq
# and GNU time from Debian's packages when missing, starts the listing server
# (scripts/VersionListingServer.java) on a free 127.0.0.1 port and stops it on exit. Output: a markdown table on stdout (medians of RUNS runs, ratio, peak RSS).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
keys="${1:-20000}"
versions="${2:-5}"
runs="${3:-3}"
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
jar="cli/target/idem-cli.jar"
if [ ! -f "$jar" ]; then
  ./mvnw -q -B -DskipTests package -pl cli -am >&2
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

bucket=scanbench
prefix=exports/
# S3Proxy's ListObjectVersions costs time proportional to the whole bucket on every request (about
# 3 s per request at 2,000 versions), which would measure S3Proxy rather than the scanners; a
# synthetic read-only listing server on loopback serves the same history fast instead.
java scripts/VersionListingServer.java "$work/port" "$keys" "$versions" "$diverge_every" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
endpoint="http://127.0.0.1:$(cat "$work/port")"
export AWS_ACCESS_KEY_ID=scanbench AWS_SECRET_ACCESS_KEY=scanbench-secret AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1 AWS_ENDPOINT_URL="$endpoint" AWS_EC2_METADATA_DISABLED=true

# The reference scan calls plain `aws`; this awscli predates AWS_ENDPOINT_URL, so a shim adds it.
mkdir -p "$work/bin"
printf '#!/bin/sh\nexec %s --endpoint-url %s "$@"\n' "$(command -v aws)" "$endpoint" > "$work/bin/aws"
chmod +x "$work/bin/aws"

# The reference scan, as the design's source article gives it (only the shebang line differs).
cat > "$work/detect_divergence.sh" <<'REF'
#!/usr/bin/env bash
set -euo pipefail
BUCKET="${1:?usage: detect_divergence.sh <bucket> <prefix>}"
PREFIX="${2:?usage: detect_divergence.sh <bucket> <prefix>}"
versions_json="$(aws s3api list-object-versions \
  --bucket "$BUCKET" --prefix "$PREFIX" \
  --query 'Versions[].{Key:Key,ETag:ETag,Time:LastModified}' \
  --output json)"
echo "$versions_json" | jq -r '
  group_by(.Key)[]
  | {key: .[0].Key, etags: ([.[].ETag] | unique), writes: length}
  | select((.etags | length) > 1)
  | "DIVERGENT \(.key) writes=\(.writes) payloads=\(.etags | length)"'
divergent="$(echo "$versions_json" | jq '
  [ group_by(.Key)[] | select(([.[].ETag] | unique | length) > 1) ] | length')"
echo "scanned prefix=$PREFIX divergent_keys=$divergent"
test "$divergent" -eq 0
REF
chmod +x "$work/detect_divergence.sh"

ref() { PATH="$work/bin:$PATH" "$work/detect_divergence.sh" "$bucket" "$prefix"; }
idem_scan() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$jar" scan --store "s3://$bucket" --prefix "$prefix"; }

# One timed run: wall seconds and peak RSS (KiB), output kept for the comparison.
timed() { # name
  local name="$1" start end
  start="$(date +%s%N)"
  /usr/bin/time -f '%M' -o "$work/$name.rss" bash -c "$name" >"$work/$name.out" 2>"$work/$name.err" || true
  end="$(date +%s%N)"
  echo "scale=3; ($end - $start) / 1000000000" | bc
  tail -n 1 "$work/$name.rss" > "$work/$name.rss.tmp" && mv "$work/$name.rss.tmp" "$work/$name.rss"
}
export -f ref idem_scan
export work bucket prefix jar

declare -a t_ref t_idem
for i in $(seq 1 "$runs"); do
  t_ref+=("$(timed ref)")
  t_idem+=("$(timed idem_scan)")
  echo "run $i: reference ${t_ref[-1]} s, idem ${t_idem[-1]} s" >&2
done

# Same divergent keys, same reference lines.
if ! diff <(sort "$work/ref.out") <(sort "$work/idem_scan.out") >"$work/diff"; then
  echo "the two scans disagree:" >&2
  head -20 "$work/diff" >&2
  exit 1
fi

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m_ref="$(median "${t_ref[@]}")"
m_idem="$(median "${t_idem[@]}")"
divergent="$(grep -c '^DIVERGENT' "$work/idem_scan.out" || true)"
cat <<TABLE
| scan of $((keys * versions)) versions ($keys keys, $divergent divergent), listing server on loopback | median wall (s) of $runs | peak RSS (MiB) |
|---|---:|---:|
| reference: aws s3api list-object-versions + jq | $m_ref | $(( $(cat "$work/ref.rss") / 1024 )) |
| idem scan | $m_idem | $(( $(cat "$work/idem_scan.rss") / 1024 )) |
| ratio reference / idem | $(echo "scale=1; $m_ref / $m_idem" | bc) | |

Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1); $(java -version 2>&1 | head -n1); $(aws --version 2>&1); $(jq --version)
TABLE

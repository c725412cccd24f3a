#!/usr/bin/env bash
# A large publish with the CLI against a local S3Proxy: the first publish of a file (multipart above
# 100 MiB, parts in parallel) and an identical publish of the same file to the same key (the HEAD
# before a large upload finds it: IDENTICAL, no payload byte sent). Times each with /usr/bin/time
# (wall seconds, peak RSS) and keeps the first publish's stderr progress lines.
#
# Usage: bench/publish-large.sh [--jar DIR] [--size-mib N] [--runs N]
#   --jar DIR     a directory holding idem-cli.jar and lib/ (default: a private copy of cli/target,
#                 built with ./mvnw -o package -pl cli -am -DskipTests when missing)
#   --size-mib N  payload size (default 160)
#   --runs N      first+identical pairs, each on a fresh key (default 3); the table shows every run
# Writes bench/target/publish-large.md. Needs curl, /usr/bin/time, the aws CLI (to create the bucket)
# and the S3Proxy jar in ~/.m2.
set -euo pipefail
cd "$(dirname "$0")/.."

jar_dir=""
size_mib=160
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --jar) jar_dir="$2"; shift 2 ;;
    --size-mib) size_mib="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "publish-large.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

out_dir="$PWD/bench/target/publish-large"
mkdir -p "$out_dir"
out_md="$PWD/bench/target/publish-large.md"

if [ -z "$jar_dir" ]; then
  if [ ! -f cli/target/idem-cli.jar ] || [ ! -d cli/target/lib ]; then
    ./mvnw -B -o -q package -pl cli -am -DskipTests
  fi
  jar_dir="$out_dir/cli-target"
  rm -rf "$jar_dir"
  mkdir -p "$jar_dir"
  cp cli/target/idem-cli.jar "$jar_dir/"
  cp -r cli/target/lib "$jar_dir/lib"
fi
[ -f "$jar_dir/idem-cli.jar" ] || { echo "publish-large.sh: no idem-cli.jar in $jar_dir" >&2; exit 2; }
# idem runs through the distribution's launcher, with the flags it gives publish: the jar in the
# distribution's layout, and this script's JDK as its runtime.
launcher_dir="$out_dir/idem"
rm -rf "$launcher_dir"
mkdir -p "$launcher_dir/bin"
cp cli/src/dist/idem "$launcher_dir/bin/idem"
ln -s "$(cd "$jar_dir" && pwd)" "$launcher_dir/app"
ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" "$launcher_dir/runtime"

s3proxy_jar="$HOME/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar"
[ -f "$s3proxy_jar" ] || { echo "publish-large.sh: no S3Proxy jar at $s3proxy_jar" >&2; exit 1; }
port=""
for p in $(seq 18400 18499); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "publish-large.sh: no free port in 18400-18499" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=AKIAIDEMBENCHEXAMPLE
export AWS_SECRET_ACCESS_KEY=idemBenchSecretKey/EXAMPLEKEY+0123456789
export AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
cat > "$out_dir/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$AWS_ACCESS_KEY_ID
s3proxy.credential=$AWS_SECRET_ACCESS_KEY
jclouds.provider=transient-nio2
jclouds.identity=$AWS_ACCESS_KEY_ID
jclouds.credential=$AWS_SECRET_ACCESS_KEY
PROPS
# In memory: the heap holds every object published (2 per run of size_mib, plus headroom).
heap_mib=$(( size_mib * (runs + 1) + 512 ))
LOG_LEVEL=warn java -Xmx${heap_mib}m -XX:+UseSerialGC -jar "$s3proxy_jar" --properties "$out_dir/s3proxy.properties" \
  > "$out_dir/s3proxy.log" 2>&1 &
s3proxy_pid=$!
trap 'kill "$s3proxy_pid" 2>/dev/null || true; wait "$s3proxy_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$AWS_ENDPOINT_URL/" || true)"
  [ "$code" = 403 ] && break
  kill -0 "$s3proxy_pid" 2>/dev/null || { echo "publish-large.sh: S3Proxy exited; see $out_dir/s3proxy.log" >&2; exit 1; }
  sleep 0.1
done
payload="$out_dir/payload.bin"
head -c $(( size_mib * 1024 * 1024 )) /dev/urandom > "$payload"

# idem never creates buckets: the AWS CLI makes the one this run publishes to.
if command -v aws >/dev/null 2>&1; then
  aws --endpoint-url "$AWS_ENDPOINT_URL" s3api create-bucket --bucket idem-large >/dev/null
else
  echo "publish-large.sh: needs the aws CLI to create the bucket" >&2
  exit 1
fi

rows=""
for run in $(seq 1 "$runs"); do
  at=$(( 1700000000 + run * 60 ))
  for kind in first identical; do
    /usr/bin/time -f '%e %M' -o "$out_dir/time" \
      "$launcher_dir/bin/idem" publish \
        --store s3://idem-large/idem --pipeline large --window 60s --schema 1 --at "$at" --writer bench \
        --file "$payload" > "$out_dir/out-$run-$kind" 2> "$out_dir/err-$run-$kind"
    read -r secs rss < "$out_dir/time"
    status="$(grep -o 'CREATED\|IDENTICAL\|DIVERGENT' "$out_dir/out-$run-$kind" | head -n 1)"
    rows="$rows| $run | $kind | $status | $secs | $(( rss / 1024 )) MiB |
"
  done
done

{
  echo "## Large publish with the CLI: ${size_mib} MiB, first and identical, same local S3Proxy"
  echo
  echo "- \`bench/publish-large.sh --size-mib $size_mib --runs $runs\`; idem: the distribution's \`bin/idem publish\` over $jar_dir and this JDK"
  echo "- S3Proxy 4.1.0 (transient-nio2, in memory) at $AWS_ENDPOINT_URL; $(nproc) CPUs; uptime at end: $(uptime)"
  echo
  echo "| run | publish | outcome | wall s | peak RSS |"
  echo "|---:|---|---|---:|---:|"
  printf '%s' "$rows"
  echo
  echo "Progress on stderr of the first publish of run 1:"
  echo
  echo '```'
  cat "$out_dir/err-1-first"
  echo '```'
} > "$out_md"
cat "$out_md"

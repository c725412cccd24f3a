#!/usr/bin/env bash
# Whole-process comparison: `idem publish` (the self-contained distribution) against
# `aws s3api put-object` (the AWS CLI) publishing one small object, create-only, to the same local
# S3Proxy. Measures wall time per command (hyperfine, else a timed loop) and peak RSS
# (/usr/bin/time -v), and writes a markdown table to bench/target/compare-cli.md.
#
# Usage: bench/compare-cli.sh [--idem PATH] [--runs N] [--size-kib N]
#   --idem PATH  the idem command to time (default: the distribution under cli/target/dist, built
#                with the dist profile if missing; falls back to the ./idem launcher)
#   --runs N     timed runs per command (default 15, after 2 warmup runs)
#   --size-kib N the object's size in KiB (default 1; 65536 is a 64 MiB file, a single PUT for both)
# Installs what is missing with apt-get: awscli (when no `aws` is on PATH), hyperfine, time.
#
# What each command does per run (fresh key every run, so every run creates an object):
#   idem: derive the key, create-only PUT (If-None-Match: *, SHA-256 signed, metadata), then advance
#         the pipeline's pointer (HEAD of the object, GET of the pointer, conditional PUT): 4 requests.
#   aws:  one PutObject with --if-none-match '*' (when this aws has the option; else a plain PUT).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=15
size_kib=1
idem_cmd=""
while [ $# -gt 0 ]; do
  case "$1" in
    --idem) idem_cmd="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --size-kib) size_kib="$2"; shift 2 ;;
    *) echo "compare-cli.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

case "$size_kib" in
  ''|*[!0-9]*|0) echo "compare-cli.sh: --size-kib takes a whole number of KiB, at least 1 (got '$size_kib')" >&2; exit 2 ;;
esac

out_dir=bench/target/compare-cli
mkdir -p "$out_dir"
out_md=bench/target/compare-cli.md

need_apt=()
command -v aws >/dev/null 2>&1 || need_apt+=(awscli)
command -v hyperfine >/dev/null 2>&1 || need_apt+=(hyperfine)
[ -x /usr/bin/time ] || need_apt+=(time)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== installing ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null \
    || echo "compare-cli.sh: could not install ${need_apt[*]}; continuing with what is there" >&2
fi
command -v aws >/dev/null 2>&1 || { echo "compare-cli.sh: no aws command" >&2; exit 1; }

# The idem command: the self-contained distribution, built here privately (cli/target is rebuilt and
# emptied by other builds) from the CLI jar with cli/src/dist/build-dist.sh, on JDK 25 when present
# (its AOT cache is part of the distribution's startup story), else on the JDK at hand.
if [ -z "$idem_cmd" ]; then
  if [ ! -f cli/target/idem-cli.jar ] || [ ! -d cli/target/lib ]; then
    echo "== building the CLI jar"
    ./mvnw -B -q package -pl cli -am -DskipTests
  fi
  jdk="${DIST_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  if [ ! -x "$jdk/bin/jlink" ]; then
    jdk="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  fi
  private="$PWD/$out_dir/cli-target"
  rm -rf "$private"
  mkdir -p "$private"
  cp cli/target/idem-cli.jar "$private/"
  cp -r cli/target/lib "$private/lib"
  version="$(unzip -p "$private/idem-cli.jar" META-INF/MANIFEST.MF 2>/dev/null \
    | sed -n 's/^Implementation-Version: *//p' | tr -d '\r')"
  picocli_version="$(ls "$private"/lib/picocli-*.jar | sed -n 's/.*picocli-\(.*\)\.jar$/\1/p' | head -n 1)"
  picocli_sources="$HOME/.m2/repository/info/picocli/picocli/$picocli_version/picocli-$picocli_version-sources.jar"
  echo "== building the idem distribution with $jdk"
  if bash cli/src/dist/build-dist.sh "$jdk" "$private" "${version:-0.1.0-SNAPSHOT}" "$picocli_sources" \
      > "$out_dir/build-dist.log" 2>&1; then
    idem_cmd="$(ls -d "$private"/dist/idem-*/bin/idem | head -n 1)"
  else
    echo "compare-cli.sh: building the distribution failed (see $out_dir/build-dist.log); using ./idem" >&2
    idem_cmd=./idem
  fi
fi
idem_cmd="$(cd "$(dirname "$idem_cmd")" && pwd)/$(basename "$idem_cmd")"

# S3Proxy on a free loopback port, stopped on exit.
s3proxy_jar=bench/target/s3proxy/s3proxy.jar
if [ ! -f "$s3proxy_jar" ]; then
  ./mvnw -B -q package -pl bench -am -DskipTests
fi
port=""
for p in $(seq 18300 18399); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "compare-cli.sh: no free port in 18300-18399" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=AKIAIDEMBENCHEXAMPLE
export AWS_SECRET_ACCESS_KEY=idemBenchSecretKey/EXAMPLEKEY+0123456789
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
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
LOG_LEVEL=warn java -Xmx1g -XX:+UseSerialGC -jar "$s3proxy_jar" --properties "$out_dir/s3proxy.properties" \
  > "$out_dir/s3proxy.log" 2>&1 &
s3proxy_pid=$!
trap 'kill "$s3proxy_pid" 2>/dev/null || true; wait "$s3proxy_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$AWS_ENDPOINT_URL/" || true)"
  [ "$code" = 403 ] && break
  kill -0 "$s3proxy_pid" 2>/dev/null || { echo "compare-cli.sh: S3Proxy exited; see $out_dir/s3proxy.log" >&2; exit 1; }
  sleep 0.1
done

bucket=idem-cli-bench
aws --endpoint-url "$AWS_ENDPOINT_URL" s3api create-bucket --bucket "$bucket" >/dev/null
head -c $(( size_kib * 1024 )) /dev/urandom > "$out_dir/payload.bin"
# Windows a month back, one minute apart: closed, so idem publishes them (a fixed start once ran into
# the future as the calendar caught up with it, and the future-window guard rightly refused it).
echo $(( ($(date +%s) - 30 * 86400) / 60 * 60 )) > "$out_dir/counter"

if aws s3api put-object help 2>/dev/null | grep -q -- '--if-none-match'; then
  aws_condition="--if-none-match '*'"
  aws_note="with --if-none-match '*'"
else
  aws_condition=""
  aws_note="plain PUT: this aws has no --if-none-match"
fi
aws_version="$(aws --version 2>&1 | head -n 1)"
idem_version="$("$idem_cmd" --version 2>&1 | head -n 1 || echo unknown)"

# Each run takes the next window (counter + 60 s), so every run writes a fresh key.
ctr="$out_dir/counter"
prepare="echo \$(( \$(cat $ctr) + 60 )) > $ctr"
idem_run="$idem_cmd publish --quiet --store s3://$bucket/idem --pipeline bench --window 60s --schema 1 --at \$(cat $ctr) --writer bench --file $out_dir/payload.bin"
aws_run="aws --endpoint-url $AWS_ENDPOINT_URL s3api put-object --bucket $bucket --key aws/\$(cat $ctr) --body $out_dir/payload.bin $aws_condition --output text > /dev/null"

# Both must succeed before anything is timed.
sh -c "$prepare" && sh -c "$idem_run" && sh -c "$aws_run"

echo "== wall time: $runs runs each"
wall_md=""
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 2 --runs "$runs" --prepare "$prepare" \
    --export-json "$out_dir/hyperfine.json" --export-markdown "$out_dir/hyperfine.md" \
    -n "idem publish" "$idem_run" -n "aws s3api put-object" "$aws_run"
  wall_md="$(cat "$out_dir/hyperfine.md")"
else
  time_loop() {
    local cmd="$1" total=0 t0 t1
    for _ in 1 2; do sh -c "$prepare"; sh -c "$cmd"; done
    for _ in $(seq 1 "$runs"); do
      sh -c "$prepare"; t0=$(date +%s%N); sh -c "$cmd"; t1=$(date +%s%N); total=$(( total + t1 - t0 ))
    done
    echo $(( total / runs / 1000000 ))
  }
  wall_md="| Command | Mean [ms] |
|:---|---:|
| idem publish | $(time_loop "$idem_run") |
| aws s3api put-object | $(time_loop "$aws_run") |"
fi

echo "== peak RSS: 5 runs each"
peak_rss() {
  local cmd="$1" values=()
  for _ in 1 2 3 4 5; do
    sh -c "$prepare"
    if ! /usr/bin/time -f '%M' -o "$out_dir/rss" sh -c "exec $cmd" >/dev/null; then
      echo "compare-cli.sh: failed: $cmd" >&2
      return 1
    fi
    values+=("$(tail -n 1 "$out_dir/rss")")
  done
  printf '%s\n' "${values[@]}" | sort -n | sed -n 3p
}
idem_rss=$(peak_rss "$idem_run") || exit 1
aws_rss=$(peak_rss "$aws_run") || exit 1

{
  echo "## Whole process: one $size_kib KiB create-only publish to the same local S3Proxy"
  echo
  echo "- idem: \`$idem_cmd\` ($idem_version): key derivation, create-only PUT, pointer advance (4 requests)"
  echo "- aws: $aws_version, one PutObject ($aws_note)"
  echo "- $(nproc) CPUs, load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "Wall time (hyperfine, $runs runs after 2 warmups; a fresh key per run):"
  echo
  echo "$wall_md"
  echo
  echo "Peak resident memory (median of 5 runs, /usr/bin/time):"
  echo
  echo "| command | peak RSS |"
  echo "|---|---:|"
  echo "| idem publish | $(( idem_rss / 1024 )) MiB |"
  echo "| aws s3api put-object | $(( aws_rss / 1024 )) MiB |"
  echo
} > "$out_md"
cat "$out_md"

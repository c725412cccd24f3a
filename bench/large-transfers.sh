#!/usr/bin/env bash
# Large outputs, side by side: `idem publish` and `idem get` against the AWS SDK's transfer manager
# (SdkTransfer: S3TransferManager over the SDK's Java multipart async client, Netty) and `aws s3 cp`,
# up and down, on one local S3Proxy reached over plain http and over https (a self-signed certificate
# each client trusts), the same file for every side. Each command is one process, timed whole; the sides take turns, starting
# with a different one each round, so a drift of the machine touches them alike.
#
# Usage: bench/large-transfers.sh [--sizes-mib LIST] [--rounds N] [--schemes LIST] [--sides LIST]
#   --sizes-mib LIST  comma-separated sizes in MiB (default 1,8,64,512,2048)
#   --rounds N        uploads and downloads per side, size and scheme (default 3)
#   --schemes LIST    http,https (default both)
#   --sides LIST      idem,sdk,aws (default all three); also idem-jvm-defaults: idem's jar started with
#                     the JVM's default JIT tiers and heap (java -XX:+UseSerialGC -cp idem-cli.jar), to
#                     show what the launcher's flags for publish and get change
#   --server-store memory|disk
#                     where S3Proxy keeps objects (default memory; its in-memory file system runs out
#                     of space on a 2 GiB upload's parts and their joined copy, so 2 GiB needs disk:
#                     files under bench/target/large-transfers/store, through the page cache)
#
# Per command: wall and CPU seconds (user + system) and peak RSS from /usr/bin/time; bytes allocated in
# the heap by every thread (JVM sides, AllocationAgent); requests the server received (S3Proxy's log of
# each request, counted between commands); and the server's CPU seconds spent on the command. Writes
# every command's row to bench/target/large-transfers/runs.tsv and the medians to
# bench/target/large-transfers.md.
#
# idem runs through the distribution's launcher (cli/src/dist/idem, over the jar in cli/target and the
# JDK that runs this script, without a class-data archive), with the flags users' publish and get
# get, and after them IDEM_JAVA_OPTS from this script's environment, to measure one flag changed; the SDK from bench/target/benchmarks.jar with the JVM's defaults; the aws CLI with its defaults
# for `s3 cp` (8 MiB parts, 10 requests at once). Builds what is missing with ./mvnw. Needs
# /usr/bin/time, curl, keytool and the aws CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

sizes="1,8,64,512,2048"
rounds=3
schemes="http,https"
sides="idem,sdk,aws"
server_store=memory
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes-mib) sizes="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --schemes) schemes="$2"; shift 2 ;;
    --sides) sides="$2"; shift 2 ;;
    --server-store) server_store="$2"; shift 2 ;;
    *) echo "large-transfers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "large-transfers.sh: --rounds takes a whole number, at least 1" >&2; exit 2 ;; esac
for s in ${sizes//,/ }; do
  case "$s" in ''|*[!0-9]*|0) echo "large-transfers.sh: --sizes-mib takes whole numbers of MiB, at least 1 (got '$s')" >&2; exit 2 ;; esac
done
for s in ${schemes//,/ }; do
  case "$s" in http|https) ;; *) echo "large-transfers.sh: --schemes takes http and https (got '$s')" >&2; exit 2 ;; esac
done
for s in ${sides//,/ }; do
  case "$s" in idem|idem-jvm-defaults|sdk|aws) ;;
    *) echo "large-transfers.sh: --sides takes idem, idem-jvm-defaults, sdk and aws (got '$s')" >&2; exit 2 ;; esac
done
case "$server_store" in memory|disk) ;; *) echo "large-transfers.sh: --server-store takes memory or disk (got '$server_store')" >&2; exit 2 ;; esac
for tool in /usr/bin/time curl keytool aws; do
  command -v "$tool" >/dev/null 2>&1 || { echo "large-transfers.sh: needs $tool" >&2; exit 1; }
done

if [ ! -f cli/target/idem-cli.jar ] || [ ! -d cli/target/lib ] || [ ! -f bench/target/benchmarks.jar ]; then
  ./mvnw -B -q package -pl cli,bench -am -DskipTests
fi
work="$root/bench/target/large-transfers"
rm -rf "$work"
mkdir -p "$work/bin"
# Private copies: another build may empty cli/target or bench/target while this runs.
cp bench/target/benchmarks.jar "$work/bin/"
cp bench/target/idem-bench-*.jar "$work/bin/agent.jar"
cp bench/target/s3proxy/s3proxy.jar "$work/bin/"
# The distribution's layout around the same jar: bin/idem, app/, and runtime/ (this script's JDK).
java_home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
mkdir -p "$work/idem/bin" "$work/idem/app"
cp cli/src/dist/idem "$work/idem/bin/idem"
cp cli/target/idem-cli.jar "$work/idem/app/"
cp -r cli/target/lib "$work/idem/app/lib"
ln -s "$java_home" "$work/idem/runtime"

# The server's certificate, and each client's trust in it: a PKCS12 trust store for the JVMs, a PEM
# bundle for the aws CLI. The trust store is made as the JDK's own cacerts is, with no password and no
# integrity MAC: a password-protected one costs each JVM two 10,000-round PBKDF2s at its first TLS
# connection (about 0.1-0.2 s of wall and 0.3 s of CPU here), which a JVM trusting the JDK's cacerts,
# as one reaching AWS S3 does, never pays.
keytool -genkeypair -alias s3proxy -keyalg EC -groupname secp256r1 -dname CN=127.0.0.1 \
  -ext SAN=ip:127.0.0.1,dns:localhost -validity 7 -keystore "$work/server.p12" -storetype PKCS12 \
  -storepass benchpass -keypass benchpass >/dev/null 2>&1
keytool -exportcert -rfc -alias s3proxy -keystore "$work/server.p12" -storepass benchpass -file "$work/ca.pem" >/dev/null 2>&1
keytool -J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE -J-Dkeystore.pkcs12.macAlgorithm=NONE \
  -importcert -noprompt -alias s3proxy -file "$work/ca.pem" -keystore "$work/trust.p12" -storetype PKCS12 \
  -storepass benchpass >/dev/null 2>&1

free_port() {
  local p
  for p in $(seq "$1" $(( $1 + 99 ))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "large-transfers.sh: no free port from $1" >&2; exit 1
}
http_port=$(free_port 18500)
https_port=$(free_port $(( http_port + 1 )))
export AWS_ACCESS_KEY_ID=AKIAIDEMBENCHEXAMPLE
export AWS_SECRET_ACCESS_KEY=idemBenchSecretKey/EXAMPLEKEY+0123456789
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
unset AWS_ENDPOINT_URL AWS_PROFILE
cat > "$work/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$http_port
s3proxy.secure-endpoint=https://127.0.0.1:$https_port
s3proxy.keystore-path=$work/server.p12
s3proxy.keystore-password=benchpass
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$AWS_ACCESS_KEY_ID
s3proxy.credential=$AWS_SECRET_ACCESS_KEY
jclouds.identity=$AWS_ACCESS_KEY_ID
jclouds.credential=$AWS_SECRET_ACCESS_KEY
PROPS
if [ "$server_store" = disk ]; then
  mkdir -p "$work/store"
  printf 'jclouds.provider=filesystem-nio2\njclouds.filesystem.basedir=%s\n' "$work/store" >> "$work/s3proxy.properties"
else
  echo 'jclouds.provider=transient-nio2' >> "$work/s3proxy.properties"
fi
largest=0
for s in ${sizes//,/ }; do [ "$s" -gt "$largest" ] && largest=$s; done
# In memory: idem's object (kept for the downloads), one upload's parts and their joined copy.
heap_mib=1024
[ "$server_store" = memory ] && heap_mib=$(( largest * 4 + 1024 ))
# LOG_LEVEL=debug makes S3Proxy log one "request:" line per request, which is how requests are counted.
LOG_LEVEL=debug java -Xmx${heap_mib}m -jar "$work/bin/s3proxy.jar" --properties "$work/s3proxy.properties" \
  > "$work/s3proxy.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http_port/" || true)"
  [ "$code" = 403 ] && break
  kill -0 "$server_pid" 2>/dev/null || { echo "large-transfers.sh: S3Proxy exited; see $work/s3proxy.log" >&2; exit 1; }
  sleep 0.1
done

bucket=idem-large
endpoint_of() { if [ "$1" = https ]; then echo "https://127.0.0.1:$https_port"; else echo "http://127.0.0.1:$http_port"; fi; }
# Each sets CMD to one side's command line, which /usr/bin/time runs as a program.
aws_cmd() { # scheme, aws arguments...
  local scheme=$1; shift
  if [ "$scheme" = https ]; then
    CMD=(aws --endpoint-url "$(endpoint_of https)" --ca-bundle "$work/ca.pem" "$@")
  else
    CMD=(aws --endpoint-url "$(endpoint_of http)" "$@")
  fi
}
tls_opts=("-Djavax.net.ssl.trustStore=$work/trust.p12" -Djavax.net.ssl.trustStoreType=PKCS12)
idem_cmd() { # scheme, alloc file, idem arguments...
  local scheme=$1 alloc=$2; shift 2
  CMD=(env "AWS_ENDPOINT_URL=$(endpoint_of "$scheme")"
    "IDEM_JAVA_OPTS=${tls_opts[*]} -javaagent:$work/bin/agent.jar=$alloc ${IDEM_JAVA_OPTS:-}" "$work/idem/bin/idem" "$@")
}
idem_jvm_defaults_cmd() { # as idem_cmd, without the launcher's flags for the hashing commands
  local scheme=$1 alloc=$2; shift 2
  CMD=(env "AWS_ENDPOINT_URL=$(endpoint_of "$scheme")" java -XX:+UseSerialGC -Xlog:disable -Xlog:all=error:stderr
    "${tls_opts[@]}" "-javaagent:$work/bin/agent.jar=$alloc" -cp "$work/idem/app/idem-cli.jar" dev.idem.cli.Main "$@")
}
idem_side_cmd() { # side (idem or idem-jvm-defaults), scheme, alloc file, idem arguments...
  local side=$1; shift
  if [ "$side" = idem ]; then idem_cmd "$@"; else idem_jvm_defaults_cmd "$@"; fi
}
store_of() { # side, scheme: each idem side publishes under a prefix of its own
  if [ "$1" = idem ]; then echo "s3://$bucket/idem-$2"; else echo "s3://$bucket/idem-jvm-$2"; fi
}
published_key() { # the key an idem side's publish --json named in $work/out
  sed -n 's/.*"key" *: *"\([^"]*\)".*/\1/p' "$work/out" | head -n 1
}
sdk_cmd() { # scheme, alloc file, upload|download, key, file
  CMD=(java "${tls_opts[@]}" "-javaagent:$work/bin/agent.jar=$2" -cp "$work/bin/benchmarks.jar" dev.idem.bench.transfer.SdkTransfer
    "$3" "$(endpoint_of "$1")" "$bucket" "$4" "$5")
}
aws_cmd http s3api create-bucket --bucket "$bucket"; "${CMD[@]}" > /dev/null

# S3Proxy writes a request's line, flushed, before it handles the request, so every line of a command's
# requests is in the log by the time the command has its last reply.
requests_so_far() { grep -c 'S3ProxyHandler.*\] request: ' "$work/s3proxy.log" || true; }
server_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
ticks_per_s=$(getconf CLK_TCK)

load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
runs="$work/runs.tsv"
printf 'op\tscheme\tsize_mib\tround\tside\twall_s\tcpu_s\trss_kib\talloc_bytes\trequests\tserver_cpu_s\n' > "$runs"
# timed OP SCHEME SIZE ROUND SIDE -- command...: one row of runs.tsv; the command's output in $work/out.
timed() {
  local op=$1 scheme=$2 size=$3 round=$4 side=$5; shift 6
  local alloc="$work/alloc"
  rm -f "$alloc"
  local r0 t0 r1 t1
  r0=$(requests_so_far); t0=$(server_ticks)
  if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err"; then
    echo "large-transfers.sh: $side $op of $size MiB over $scheme failed:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  r1=$(requests_so_far); t1=$(server_ticks)
  local wall user sys rss
  read -r wall user sys rss < "$work/time"
  local allocated=-
  [ -f "$alloc" ] && allocated=$(cat "$alloc")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$op" "$scheme" "$size" "$round" "$side" "$wall" \
    "$(echo "$user + $sys" | bc)" "$rss" "$allocated" $(( r1 - r0 )) \
    "$(echo "scale=2; ($t1 - $t0) / $ticks_per_s" | bc)" >> "$runs"
  printf '  %-8s %-6s %5s MiB round %s %-5s %6ss\n' "$op" "$scheme" "$size" "$round" "$side" "$wall" >&2
}

# One untimed publish per scheme first: idem proves a new store once (its probe), as any user's first
# publish does, and each side's first start warms the file system cache of its jars and modules.
echo 'warm-up' > "$work/warm.bin"
at=1700000000
for scheme in ${schemes//,/ }; do
  idem_cmd "$scheme" "$work/alloc" publish --store "s3://$bucket/idem-$scheme" --pipeline large --window 60s \
    --schema 1 --at "$at" --writer bench --file "$work/warm.bin" --quiet
  "${CMD[@]}" > /dev/null
  if [[ ",$sides," == *,idem-jvm-defaults,* ]]; then
    idem_jvm_defaults_cmd "$scheme" "$work/alloc" publish --store "s3://$bucket/idem-jvm-$scheme" --pipeline large \
      --window 60s --schema 1 --at "$at" --writer bench --file "$work/warm.bin" --quiet
    "${CMD[@]}" > /dev/null
  fi
  sdk_cmd "$scheme" "$work/alloc" upload "warm/sdk-$scheme" "$work/warm.bin"
  "${CMD[@]}"
  aws_cmd "$scheme" s3 cp --no-progress "$work/warm.bin" "s3://$bucket/warm/aws-$scheme"
  "${CMD[@]}" > /dev/null
done

side_list=(${sides//,/ })
n_sides=${#side_list[@]}
for size in ${sizes//,/ }; do
  payload="$work/payload-$size.bin"
  head -c $(( size * 1024 * 1024 )) /dev/urandom > "$payload"
  for round in $(seq 1 "$rounds"); do
    for scheme in ${schemes//,/ }; do
      at=$(( at + 60 ))
      declare -A keys=()
      for i in $(seq 0 $(( n_sides - 1 ))); do
        side=${side_list[$(( (i + round) % n_sides ))]}
        case $side in
          idem|idem-jvm-defaults)
            idem_side_cmd "$side" "$scheme" "$work/alloc" publish --store "$(store_of "$side" "$scheme")" \
              --pipeline large --window 60s --schema 1 --at "$at" --writer bench --file "$payload" --json --quiet
            timed up "$scheme" "$size" "$round" "$side" -- "${CMD[@]}"
            keys[$side]=$(published_key) ;;
          sdk)
            sdk_cmd "$scheme" "$work/alloc" upload "peers/sdk-$size-$round" "$payload"
            timed up "$scheme" "$size" "$round" sdk -- "${CMD[@]}" ;;
          aws)
            aws_cmd "$scheme" s3 cp --no-progress "$payload" "s3://$bucket/peers/aws-$size-$round"
            timed up "$scheme" "$size" "$round" aws -- "${CMD[@]}" ;;
        esac
      done
      # Every side downloads the same object: the one idem published, or the SDK's when idem is not run.
      if [ -n "${keys[idem]:-}" ]; then down_key="idem-$scheme/${keys[idem]}"; else down_key="peers/sdk-$size-$round"; fi
      for i in $(seq 0 $(( n_sides - 1 ))); do
        side=${side_list[$(( (i + round) % n_sides ))]}
        rm -f "$work/down.bin"
        case $side in
          idem|idem-jvm-defaults)
            [ -n "${keys[$side]:-}" ] || continue
            idem_side_cmd "$side" "$scheme" "$work/alloc" get --store "$(store_of "$side" "$scheme")" \
              --pipeline large --window 60s --schema 1 --at "$at" -o "$work/down.bin" --json --quiet
            timed down "$scheme" "$size" "$round" "$side" -- "${CMD[@]}" ;;
          sdk)
            sdk_cmd "$scheme" "$work/alloc" download "$down_key" "$work/down.bin"
            timed down "$scheme" "$size" "$round" sdk -- "${CMD[@]}" ;;
          aws)
            aws_cmd "$scheme" s3 cp --no-progress "s3://$bucket/$down_key" "$work/down.bin"
            timed down "$scheme" "$size" "$round" aws -- "${CMD[@]}" ;;
        esac
        cmp -s "$payload" "$work/down.bin" || { echo "large-transfers.sh: $side downloaded other bytes" >&2; exit 1; }
      done
      rm -f "$work/down.bin"
      # The server keeps objects in memory: remove this round's.
      aws_cmd http s3 rm --quiet --recursive "s3://$bucket/peers/"
      "${CMD[@]}" > /dev/null
      # Only the objects: each store's marker under its prefix stays, or the next publish probes again.
      for side in "${!keys[@]}"; do
        aws_cmd http s3 rm --quiet "$(store_of "$side" "$scheme")/${keys[$side]}"
        "${CMD[@]}" > /dev/null
      done
    done
  done
  rm -f "$payload"
done

# Medians per operation, scheme, size and side; the ratio of idem's wall time to the fastest peer's.
{
  echo "## Large transfers: idem, the SDK's transfer manager and aws s3 cp, on one S3Proxy"
  echo
  echo "- \`bench/large-transfers.sh --sizes-mib $sizes --rounds $rounds --schemes $schemes --sides $sides --server-store $server_store\`"
  echo "- $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(java -version 2>&1 | head -n 1), $(aws --version 2>&1)"
  echo "- load average at the start: $load_at_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- medians of $rounds; CPU is the client's (user + system); server CPU is S3Proxy's during the command"
  echo
  echo "| op | scheme | size | side | wall s | CPU s | peak RSS MiB | allocated MiB | requests | server CPU s | wall / best peer |"
  echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 {
      k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $5
      n[k]++; wall[k, n[k]] = $6; cpu[k, n[k]] = $7; rss[k, n[k]] = $8; alloc[k, n[k]] = $9; req[k, n[k]] = $10; srv[k, n[k]] = $11
      if (!(k in seen)) { seen[k] = 1; order[++m] = k }
    }
    function median(a, k, c,   i, j, t, v) {
      for (i = 1; i <= c; i++) v[i] = a[k, i]
      for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
      return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
    }
    END {
      for (i = 1; i <= m; i++) { k = order[i]; med[k] = median(wall, k, n[k]) }
      for (i = 1; i <= m; i++) {
        k = order[i]; split(k, f, SUBSEP)
        best = ""
        if (f[4] ~ /^idem/) {
          for (j = 1; j <= m; j++) { split(order[j], g, SUBSEP)
            if (g[1] == f[1] && g[2] == f[2] && g[3] == f[3] && g[4] !~ /^idem/ && (best == "" || med[order[j]] < best)) best = med[order[j]] }
        }
        a = median(alloc, k, n[k])
        printf "| %s | %s | %s MiB | %s | %.2f | %.2f | %.0f | %s | %s | %.2f | %s |\n", f[1], f[2], f[3], f[4], med[k], median(cpu, k, n[k]),
          median(rss, k, n[k]) / 1024, (alloc[k, 1] == "-") ? "—" : sprintf("%.0f", a / 1048576), median(req, k, n[k]), median(srv, k, n[k]),
          (best == "" || best == 0) ? "" : sprintf("%.2f×", med[k] / best)
      }
    }' "$runs"
} > "$root/bench/target/large-transfers.md"
cat "$root/bench/target/large-transfers.md"

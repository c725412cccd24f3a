#!/usr/bin/env bash
# Start time of the self-contained idem against the floor of any JVM start, a hello-world main, side
# by side: every round runs each command once, in the same order, so load on the machine hits all of
# them alike. Prints a markdown table of medians and their ratio to the hello-world floors.
#
#   scripts/startup-vs-hello.sh [DIST_DIR] [ROUNDS] [BASELINE_DIST_DIR]
#
# DIST_DIR is an unpacked distribution (default: the one `-Pdist package` left in cli/target/dist);
# ROUNDS defaults to 21. BASELINE_DIST_DIR, another unpacked distribution (an earlier commit's, say),
# adds its four idem commands to the same rounds, so a change is measured against what it changed
# in one run. The hello-world main is compiled with $JDK/bin/javac (JDK defaults to
# JAVA_HOME, else the JDK 25 the dist is built with) for release 17, and run twice: on the dist's own
# runtime (which has no default CDS archive: jlink leaves it out) and on $JDK itself, whose default
# CDS archive makes it the lower, stricter floor. Needs bash 5 ($EPOCHREALTIME).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dist="${1:-}"
rounds="${2:-21}"
if [ -z "$dist" ]; then
  dist="$(ls -d "$root"/cli/target/dist/idem-*/ 2>/dev/null | head -n 1 || true)"
fi
if [ -z "$dist" ] || [ ! -x "$dist/bin/idem" ]; then
  echo "startup-vs-hello: no distribution; build one with" >&2
  echo "  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -Pdist package -pl cli -am -DskipTests" >&2
  exit 2
fi
dist="${dist%/}"
base="${3:-}"
if [ -n "$base" ] && [ ! -x "$base/bin/idem" ]; then
  echo "startup-vs-hello: no distribution at $base (BASELINE_DIST_DIR)" >&2
  exit 2
fi
base="${base%/}"
jdk="${JDK:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}}"
if [ ! -x "$jdk/bin/javac" ]; then
  echo "startup-vs-hello: no javac in $jdk (set JDK=/path/to/jdk)" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/Hello.java" <<'JAVA'
public class Hello {
  public static void main(String[] args) {
    System.out.println("Hello, world");
  }
}
JAVA
"$jdk/bin/javac" --release 17 -d "$work" "$work/Hello.java"
printf 'payload\n' > "$work/payload"
"$dist/bin/idem" --version >/dev/null

names=(hello-jdk hello-dist help key publish run)
labels=(
  "hello world, \`$(basename "$jdk")\` (default CDS)"
  "hello world, the dist's runtime"
  "\`idem --help\`"
  "\`idem key ...\`"
  "\`idem publish\` to \`file:\` (new window each run)"
  "\`idem run\` on \`file:\` (new window each run; the task is \`/bin/sh -c 'echo rows'\`)"
)
if [ -n "$base" ]; then
  "$base/bin/idem" --version >/dev/null
  names+=(base-help base-key base-publish base-run)
  labels+=(
    "\`idem --help\`, baseline"
    "\`idem key ...\`, baseline"
    "\`idem publish\` to \`file:\`, baseline"
    "\`idem run\` on \`file:\`, baseline"
  )
fi
# run NAME ROUND: one command; the baseline's run from its own directory into its own store.
run() {
  local idem="$dist/bin/idem" store="$work/store" n="$1"
  case "$n" in
    base-*) idem="$base/bin/idem"; store="$work/base-store"; n="${n#base-}" ;;
  esac
  case "$n" in
    hello-jdk) "$jdk/bin/java" -cp "$work" Hello ;;
    hello-dist) "$dist/runtime/bin/java" -cp "$work" Hello ;;
    help) "$idem" --help ;;
    key) "$idem" key --pipeline bench --window 1h --schema 1 --input snapshot=v1 ;;
    # Windows long closed, one more each round: each run creates an object and advances the pointer.
    publish) "$idem" publish --pipeline bench --window 60s --at "$((1726000030 + 60 * $2))" \
      --schema 1 --store "file:$store" --file "$work/payload" ;;
    # The scheduled job: runs the task, publishes its stdout, advances the pointer.
    run) "$idem" run --pipeline job --window 60s --at "$((1726000030 + 60 * $2))" --schema 1 \
      --store "file:$store" --stdout -- /bin/sh -c 'echo rows' ;;
  esac
}

for n in "${names[@]}"; do : > "$work/$n.times"; done
# bash's time keyword: wall, user and system seconds of each run, without forking a timer.
TIMEFORMAT='%3R %3U %3S'
for ((i = 0; i < rounds; i++)); do
  for n in "${names[@]}"; do
    if ! { time run "$n" "$i" >/dev/null 2>"$work/err"; } 2>>"$work/$n.times"; then
      echo "startup-vs-hello: $n failed: $(head -n 1 "$work/err")" >&2
      exit 1
    fi
  done
done

# median_ms FILE EXPR: the median, in ms, of EXPR (awk, over $1 wall, $2 user, $3 system seconds).
median_ms() {
  awk "{ print ($2) * 1000 }" "$1" | sort -n | awk '{ v[NR] = $1 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m }'
}
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}
floor_jdk="$(median_ms "$work/hello-jdk.times" '$1')"
floor_dist="$(median_ms "$work/hello-dist.times" '$1')"
cpu_floor="$(median_ms "$work/hello-jdk.times" '$2 + $3')"
echo "$rounds rounds, interleaved, on $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg));" \
  "$("$dist/runtime/bin/java" -version 2>&1 | head -n 1)"
echo
echo "| command | median wall | × hello (JDK, CDS) | × hello (dist runtime) | median CPU (user+sys) | CPU × hello (JDK) |"
echo "|---|---:|---:|---:|---:|---:|"
for k in "${!names[@]}"; do
  f="$work/${names[$k]}.times"
  m="$(median_ms "$f" '$1')"
  c="$(median_ms "$f" '$2 + $3')"
  printf '| %s | %s ms | %s | %s | %s ms | %s |\n' "${labels[$k]}" "$m" "$(ratio "$m" "$floor_jdk")" \
    "$(ratio "$m" "$floor_dist")" "$c" "$(ratio "$c" "$cpu_floor")"
done

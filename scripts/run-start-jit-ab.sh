#!/usr/bin/env bash
# `idem run` start under four JIT and AOT-cache set-ups, side by side (BENCHMARKS.md):
# whether a cache trained with C2 in the mix, its method profiles replayed (JDK 25), starts `run` faster
# than the launcher's choice (C2 for hashing, training not replayed) or C1 alone. Two caches are made
# first from the distribution's own training workload (dev.idem.cli.Training, file: store only; its
# classes from the build's cli/target/training-classes, packed with the jar tool of JAVA_HOME or PATH), one
# recorded under C1 (as the dist build does), one with full tiering. Every round runs each set-up once,
# in the same order; prints the medians of wall and of user+system CPU.
#
#   scripts/run-start-jit-ab.sh DIST_DIR [ROUNDS]     (DIST_DIR: an unpacked JDK 25 distribution)
set -euo pipefail
dist="${1:?usage: scripts/run-start-jit-ab.sh DIST_DIR [ROUNDS]}"
dist="${dist%/}"
rounds="${2:-21}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
java="$dist/runtime/bin/java"
jar="$dist/app/idem-cli.jar"
training="$(cd "$(dirname "$0")/.." && pwd)/cli/target/training-classes"
[ -d "$training" ] || { echo "run-start-jit-ab: no $training (./mvnw -B package -pl cli -am -DskipTests)" >&2; exit 2; }
"${JAVA_HOME:+$JAVA_HOME/bin/}jar" --create --file "$work/idem-training.jar" -C "$training" .
for kind in c1 tiered; do
  flag=""
  [ "$kind" = c1 ] && flag="-XX:TieredStopAtLevel=1"
  mkdir -p "$work/train-$kind"
  (cd "$work/train-$kind" && "$java" $flag -XX:+UseSerialGC -XX:AOTCacheOutput="$work/$kind.aot" \
    -XX:+AOTClassLinking -Xlog:disable -Xlog:all=error:stderr -cp "$jar:$work/idem-training.jar" dev.idem.cli.Training \
    "$work/train-$kind/store" >/dev/null 2>&1)
done
names=(launcher c1-only tiered-replayed tiered-not-replayed)
declare -A flags=(
  [launcher]="-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining -XX:AOTCache=$work/c1.aot"
  [c1-only]="-XX:TieredStopAtLevel=1 -XX:AOTCache=$work/c1.aot"
  [tiered-replayed]="-XX:AOTCache=$work/tiered.aot"
  [tiered-not-replayed]="-XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining -XX:AOTCache=$work/tiered.aot"
)
TIMEFORMAT='%3R %3U %3S'
for ((i = 0; i < rounds; i++)); do
  for n in "${names[@]}"; do
    { time "$java" ${flags[$n]} -XX:+UseSerialGC -Xlog:disable -Xlog:all=error:stderr -Djava.io.tmpdir=/tmp \
      -cp "$jar" dev.idem.cli.Main run --pipeline job --window 60s --at "$((1726000030 + 60 * i))" --schema 1 \
      --store "file:$work/store-$n" --stdout -- /bin/sh -c 'echo rows' >/dev/null; } 2>>"$work/$n.times"
  done
done
for n in "${names[@]}"; do
  python3 -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[2]) if l.strip()]
wall = statistics.median(float(r[0]) for r in rows) * 1000
cpu = statistics.median(float(r[1]) + float(r[2]) for r in rows) * 1000
print("%-20s wall %4.0f ms  cpu %4.0f ms  (median of %d)" % (sys.argv[1], wall, cpu, len(rows)))
' "$n" "$work/$n.times"
done

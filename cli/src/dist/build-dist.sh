#!/usr/bin/env bash
# Builds the self-contained idem distribution (the cli module's `dist` profile runs this after
# `package`): a jlink'd runtime of only the JDK modules idem needs (found by jdeps), the jar and its
# libraries, a class-data archive from a training run (an AOT cache on JDK 25+, a dynamic CDS archive
# before that), and bin/idem, packed as one tar.xz that runs on glibc Linux without a JDK.
#
# usage: build-dist.sh JDK_HOME TARGET_DIR VERSION [PICOCLI_SOURCES_JAR]
set -euo pipefail

jdk="$1"
target="$2"
version="$3"
picocli_sources="${4:-}"

name="idem-$version-linux-$(uname -m)"
out="$target/dist/$name"
rm -rf "$target/dist"
mkdir -p "$out/app" "$out/bin"

cp "$target/idem-cli.jar" "$out/app/"
# Shell completion and man pages, generated from the command model in prepare-package (DocGenerator).
cp -r "$target/completion" "$out/completion"
mkdir -p "$out/man"
cp -r "$target/man/man1" "$out/man/man1"
cp -r "$target/lib" "$out/app/lib"

# picocli's jar is Java 5 bytecode, which CDS and the AOT cache skip ("old class"), so about 200 of
# the classes --help loads would come from the jar on every start. The same source, compiled for
# release 17, archives like everything else. The jar keeps its name: idem-cli.jar's Class-Path names it.
picocli_jar="$(ls "$out/app/lib/"picocli-*.jar)"
if [ -n "$picocli_sources" ] && [ -f "$picocli_sources" ]; then
  src="$target/picocli-recompiled/src"
  classes="$target/picocli-recompiled/classes"
  rm -rf "$target/picocli-recompiled"
  mkdir -p "$src" "$classes"
  (cd "$src" && "$jdk/bin/jar" --extract --file "$picocli_sources")
  find "$src" -name '*.java' ! -name module-info.java > "$target/picocli-recompiled/sources.txt"
  "$jdk/bin/javac" --release 17 -XDstringConcat=inline -nowarn -Xlint:none -XDsuppressNotes -d "$classes" @"$target/picocli-recompiled/sources.txt"
  (cd "$classes" && "$jdk/bin/jar" --extract --file "$picocli_jar" META-INF/MANIFEST.MF)
  rm "$picocli_jar"
  "$jdk/bin/jar" --create --file "$picocli_jar" --manifest "$classes/META-INF/MANIFEST.MF" -C "$classes" picocli
  echo "dist: $(basename "$picocli_jar") recompiled from its sources for release 17"
else
  echo "dist: picocli sources not given; its Java 5 classes stay outside the class-data archive"
fi

# Every jar stored uncompressed (same entries, same manifest): the tar.xz then compresses the class
# files as one stream, 1.76 -> 1.0 MB packed for the jars (small classes deflate badly one by one),
# and classes outside the class-data archive load without inflating. Before training: the archive
# records each jar's size and time.
repack="$target/dist-repack"
for jar in "$out/app/idem-cli.jar" "$out/app/lib/"*.jar; do
  rm -rf "$repack"
  mkdir -p "$repack"
  (cd "$repack" && "$jdk/bin/jar" --extract --file "$jar")
  rm "$jar"
  "$jdk/bin/jar" --create --no-compress --file "$jar" --manifest "$repack/META-INF/MANIFEST.MF" -C "$repack" .
done
rm -rf "$repack"

# 1. The modules idem needs, as jdeps sees them in the jar and every library; jdk.crypto.ec adds the
#    elliptic-curve TLS suites S3 endpoints negotiate (a separate module before JDK 22).
mods="$("$jdk/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 \
  "$out/app/idem-cli.jar" "$out/app/lib/"*.jar 2>/dev/null | tail -n 1)"
if "$jdk/bin/java" --list-modules | grep -q '^jdk.crypto.ec@'; then
  mods="$mods,jdk.crypto.ec"
fi
# jdk.unsupported holds sun.misc.Signal, which run --on-term finish reaches by reflection (unseen by jdeps).
mods="$mods,jdk.unsupported"
# java.xml (about 3 MB packed) stays out: the S3 store reads XML with its own parser
# (dev.idem.store.s3.internal.xml), and a new use of java.xml in idem or a library must be a decision.
case ",$mods," in
  *,java.xml,*)
    echo "dist: java.xml is among the modules ($mods): a shipped class uses it; the dist leaves it out" >&2
    exit 1 ;;
esac
echo "dist: modules $mods"

# 2. The runtime. Before JDK 24 the dynamic CDS archive of step 4 sits on top of the runtime's default
#    CDS archive, which --generate-cds-archive makes; a JDK 25 AOT cache holds the JDK classes itself.
major="$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
# Uncompressed: the archive then compresses the class files as one stream, which packs 4.6 MB smaller
# than jlink's per-resource zip (measured on JDK 25), and the JVM reads classes without inflating them.
compress="--compress=zip-0"
if [ "$major" -lt 21 ]; then
  compress="--compress=0"
fi
cds=()
if [ "$major" -lt 25 ]; then
  cds=(--generate-cds-archive)
fi
# jrt-fs.jar lets another JDK read this runtime's modules; nothing idem runs uses it.
"$jdk/bin/jlink" --add-modules "$mods" --output "$out/runtime" \
  --strip-debug --no-header-files --no-man-pages "$compress" "${cds[@]}" \
  --exclude-files='glob:/java.base/lib/jrt-fs.jar'
# The JDK's native libraries keep their full symbol tables (libjvm.so: 29 MB, 24.8 MB without); the
# dynamic symbols the loader needs stay. Crash logs (hs_err) then name fewer internal JVM frames.
if command -v strip >/dev/null; then
  find "$out/runtime" -name '*.so' -exec strip --strip-unneeded {} +
else
  echo "dist: no strip command (binutils); the runtime's native libraries keep their symbol tables"
fi

# 3. The launcher (src/dist/idem, POSIX sh), relative to its own location, so the unpacked
#    directory can live anywhere. A JDK 25 AOT cache still applies after the directory is moved; a
#    JDK 17 CDS archive records absolute class paths, so it applies only where it was built
#    (elsewhere idem starts without it, as fast as plain java -jar).
cp "$(dirname "$0")/idem" "$out/bin/idem"
chmod 755 "$out/bin/idem"

# 4. Training run: dev.idem.cli.Training drives the paths a job and a gate take (help, key, publish,
#    run, pointer show, get, scan) in one JVM, on a file: store and on an S3 store served by S3Proxy
#    (the jar the cli's tests use, started by Training on a free 127.0.0.1 port with this JDK's java
#    and stopped when it ends), so the archive holds their classes. When S3Proxy cannot run, the build
#    goes on and says the S3 path was not trained. Training is not in idem-cli.jar: its classes
#    (src/training, compiled by the build into target/training-classes) go into app/idem-training.jar,
#    put behind idem-cli.jar for this run. A JDK 25 AOT cache accepts a run whose class path is a prefix
#    of the training run's, so there the jar is deleted afterwards and bin/idem runs without it. A JDK
#    17-24 dynamic CDS archive is refused on a shorter class path ("Run time APP classpath is shorter
#    than the one at dump time"), so there the jar stays in app/ and bin/idem puts it behind the jar.
training="$target/training-classes"
[ -f "$training/dev/idem/cli/Training.class" ] \
  || { echo "dist: no training classes in $training (the cli build compiles src/training)" >&2; exit 1; }
"$jdk/bin/jar" --create --no-compress --file "$out/app/idem-training.jar" -C "$training" .
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ "$major" -ge 25 ]; then
  # With AOT class linking every cached class is loaded at startup, already linked, and the lambdas
  # and other invokedynamic call sites the training resolved stay resolved, which takes CPU off every
  # command's start for a few MB more cache and RSS (scripts/startup-vs-hello.sh measures it). Loaded
  # is not initialized: --help still runs no S3, HTTP or XML class's initializer (DistArchiveE2E).
  flags=("-XX:AOTCacheOutput=$out/app/idem.aot" -XX:+AOTClassLinking)
  kind="AOT cache"
else
  flags=("-XX:ArchiveClassesAtExit=$out/app/idem.jsa")
  kind="dynamic CDS archive"
fi
(cd "$work" && "$out/runtime/bin/java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "${flags[@]}" \
  -Xlog:disable -Xlog:all=error:stderr -cp "$out/app/idem-cli.jar:$out/app/idem-training.jar" dev.idem.cli.Training \
  "$work/store" "$target/s3proxy/s3proxy.jar" "$jdk/bin/java")
if [ "$major" -ge 25 ]; then
  rm "$out/app/idem-training.jar"
fi
echo "dist: $kind from a training run"

# 5. Smoke test of the unpacked layout, then pack.
"$out/bin/idem" --version >/dev/null
#    The checksum file is in `sha256sum -c` format: it names the archive without a directory, so it
#    is checked from the directory both were downloaded to.
#    xz -6, not gzip -9: the runtime's modules, libjvm.so and the AOT cache are each one large file with
#    long-range redundancy that LZMA's 8 MiB window finds and deflate's 32 KiB window does not (the
#    same dist packs 28.5 MB with gzip -9, 19.5 MB with xz -6; about a minute of one core to pack).
#    Unpacking needs 9 MiB of memory; every tar that unpacks .tar.gz unpacks .tar.xz when xz is there.
command -v xz >/dev/null || { echo "dist: no xz command (Debian: apt-get install xz-utils)" >&2; exit 1; }
(cd "$target" && rm -f "$name.tar.xz" "$name.tar.xz.sha256" "$name.tar.gz" "$name.tar.gz.sha256" \
  && tar -C dist -cf - "$name" | xz -6 -T1 > "$name.tar.xz" \
  && sha256sum "$name.tar.xz" > "$name.tar.xz.sha256")
echo "dist: $target/$name.tar.xz ($(du -sh "$out" | cut -f1) unpacked, $(du -h "$target/$name.tar.xz" | cut -f1) packed)"
echo "dist: $target/$name.tar.xz.sha256"

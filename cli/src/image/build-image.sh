#!/usr/bin/env bash
# Builds idem's container image from the self-contained distribution directory, with no container
# daemon and no base image: the cli module's `image` profile runs this in `package`, after the `dist`
# profile has written target/dist/idem-VERSION-linux-ARCH/.
#
# What the image holds, and nothing else (no shell, no package manager):
#   /opt/idem/runtime, /opt/idem/app   the dist's jlink'd runtime (its lib/security/cacerts is the CA
#                                      set TLS to S3 is verified with), jar, libraries and AOT cache
#   /opt/idem/bin/idem                 the dist's sh launcher, for a task image that copies /opt/idem
#                                      (this image has no shell: its entrypoint is java itself)
#   /lib..., /lib64/...                the C libraries the runtime links against, found with ldd on
#                                      every binary and shared object of the runtime and taken from
#                                      the Debian packages that own them on this (Debian) build host
#                                      (apt-get download + dpkg-deb -x, as distroless images are made),
#                                      with each package's copyright file
#   /etc/passwd, /etc/group            root and nonroot (65532:65532), whose home is /home/nonroot
#   /etc/nsswitch.conf                 hosts from /etc/hosts before DNS, as the container runtime
#                                      writes them
#   /tmp                               mode 1777: the JVM's java.io.tmpdir (publish spools stdin there)
#   /usr/local/share/...               bash, zsh and fish completion and the man pages
# The entrypoint is the runtime's java with the flags bin/idem passes to the commands that end in a
# moment (exec form: no shell runs), and -Didem.jit=per-command, with which idem starts publish, run
# and get again in a JVM with the flags bin/idem passes to them (JitRelaunch); the image's user is
# 65532:65532.
#
# Three layers, least to most often changed (C libraries and /etc, runtime, application), each a
# gzip'd ustar archive with files owned by root (nonroot's home by 65532) and every mtime set to the
# build date, so an unchanged layer has the same digest build after build. The output,
# target/idem-image-VERSION.tar, is both an OCI image layout (oci-layout, index.json, blobs/sha256/)
# and a docker-archive (manifest.json naming the same blobs), the form `docker save` writes since
# Docker 25: `docker load` and `podman load` take it. It is tagged idem:VERSION.
#
# On failure the script stops at the first error (set -e) with a one-line reason; the only things it
# writes are target/image/ (scratch) and, last, the image tar through a temporary name and a rename,
# so a failed build leaves no partial image.
#
# usage: build-image.sh TARGET_DIR VERSION
set -euo pipefail
export LC_ALL=C
umask 022

target="$(cd "$1" && pwd -P)"
version="$2"

die() {
  echo "image: $*" >&2
  exit 1
}

for tool in apt-get dpkg-deb dpkg-query ldd sha256sum tar; do
  command -v "$tool" >/dev/null || die "needs $tool: the image takes its C libraries from Debian packages, so it is built on Debian or a derivative"
done
# libdeflate's gzip at level 12 packs the layers 3.5% smaller than gzip -9 (29.7 against 30.8 MB
# with the dist of 2 December 2026) in about the same time; its output is plain gzip.
command -v libdeflate-gzip >/dev/null || die "needs libdeflate-gzip: apt-get install libdeflate-tools"

case "$version" in
  *[!A-Za-z0-9._-]*) die "version '$version' has characters that cannot go into an image tag" ;;
esac

arch="$(uname -m)"
case "$arch" in
  x86_64) oci_arch=amd64 ;;
  aarch64) oci_arch=arm64 ;;
  *) die "no OCI architecture name for $arch" ;;
esac

dist="$target/dist/idem-$version-linux-$arch"
[ -d "$dist" ] || die "no distribution directory $dist: build with -Pdist,image"
# The dist directory survives `mvn package` without -Pdist; an image from it would hold an old jar.
# build-dist.sh repacks the jar (stored, not deflated), so the bytes differ; a dist made in this
# build is at least as new as the jar.
[ ! "$target/idem-cli.jar" -nt "$dist/app/idem-cli.jar" ] \
  || die "$dist is older than $target/idem-cli.jar: build with -Pdist,image"
[ -f "$dist/app/idem.aot" ] || die "$dist has no AOT cache (app/idem.aot): build the dist with JDK 25"
[ -f "$dist/runtime/lib/security/cacerts" ] || die "$dist/runtime has no lib/security/cacerts"

# The build date `idem --version` prints (build-info.sh honours SOURCE_DATE_EPOCH): the image's
# creation time and every file's mtime.
built="$(sed -n 's/^idem.build.date=//p' "$target/build-info.properties")"
commit="$(sed -n 's/^idem.commit=//p' "$target/build-info.properties")"
[ -n "$built" ] || die "no idem.build.date in $target/build-info.properties"
epoch="$(date -u -d "$built" +%s)"

work="$target/image"
rm -rf "$work"
mkdir -p "$work/debs" "$work/pkg" "$work/blobs/sha256"
base="$work/layer-base"
runtime="$work/layer-runtime"
app="$work/layer-app"
mkdir -p "$base" "$runtime/opt/idem" "$app/opt/idem"

# 1. The C libraries: ldd's closure over the runtime's ELF files, minus what the runtime holds itself
#    (a library it names by bare name, like libjvm.so, is found through the runtime's own paths).
libs=()
while IFS= read -r -d '' f; do
  head -c 4 "$f" | grep -q 'ELF' || continue
  while IFS= read -r line; do
    case "$line" in
      *"=> not found"*)
        name="${line%% =>*}"
        name="${name#"${name%%[![:space:]]*}"}"
        [ -n "$(find "$dist/runtime" -name "$name" -print -quit)" ] \
          || die "$f needs $name, which neither the runtime nor this host has"
        ;;
      *"=> "/*) path="${line#*=> }"; libs+=("${path%% (*}") ;;
      [[:space:]]/*) path="${line#"${line%%[![:space:]]*}"}"; libs+=("${path%% (*}") ;;
    esac
  done < <(ldd "$f" 2>/dev/null || true)
done < <(find "$dist/runtime" -type f \( -path '*/bin/*' -o -name '*.so' -o -name 'jexec' -o -name 'jspawnhelper' \) -print0)

declare -A owner=() wanted=()
for lib in "${libs[@]}"; do
  case "$lib" in "$dist"/*) continue ;; esac
  [ -n "${wanted[$lib]:-}" ] && continue
  # dpkg knows a file by the path its package ships it at; on a merged-/usr host ldd may print the
  # other spelling.
  found=""
  for candidate in "$lib" "${lib#/usr}" "/usr$lib"; do
    if found="$(dpkg-query -S "$candidate" 2>/dev/null)"; then
      lib="$candidate"
      break
    fi
  done
  [ -n "$found" ] || die "no Debian package owns $lib (ldd found it for the runtime)"
  pkg="${found%%: *}"
  wanted[$lib]="$pkg"
  owner[$pkg]=1
done
[ "${#wanted[@]}" -gt 0 ] || die "ldd found no C library under $dist/runtime"

# apt-get download fetches the version the host's package lists offer (the base distribution's
# current one); the image records the versions it took in a label.
(cd "$work/debs" && apt-get -q -o APT::Sandbox::User="$(id -un)" download "${!owner[@]}" >/dev/null) \
  || die "apt-get download ${!owner[*]} failed (run apt-get update first?)"
packages=()
for deb in "$work/debs"/*.deb; do
  pkg="$(dpkg-deb -f "$deb" Package)"
  packages+=("$pkg=$(dpkg-deb -f "$deb" Version)")
  dpkg-deb -x "$deb" "$work/pkg/$pkg"
done

copy_from_package() { # PKG PATH: the file, or the chain of symlinks to it, as the package ships it
  local tree="$work/pkg/${1%%:*}" path="$2" hops=0 link
  while :; do
    [ -e "$tree$path" ] || [ -L "$tree$path" ] || die "package ${1%%:*} has no $path"
    mkdir -p "$base$(dirname "$path")"
    cp -a "$tree$path" "$base$path"
    [ -L "$tree$path" ] || return 0
    hops=$((hops + 1))
    [ "$hops" -le 8 ] || die "$path in ${1%%:*}: too many symlinks"
    link="$(readlink "$tree$path")"
    case "$link" in
      /*) path="$link" ;;
      *) path="$(dirname "$path")/$link" ;;
    esac
  done
}
for lib in "${!wanted[@]}"; do
  copy_from_package "${wanted[$lib]}" "$lib"
done
for pkg in "${!owner[@]}"; do
  copy_from_package "$pkg" "/usr/share/doc/${pkg%%:*}/copyright"
done

# 2. Users, name resolution, /tmp, nonroot's home.
mkdir -p "$base/etc" "$base/tmp" "$base/home/nonroot"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' \
  > "$base/etc/passwd"
printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' > "$base/etc/group"
printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' > "$base/etc/nsswitch.conf"
chmod 0644 "$base/etc/passwd" "$base/etc/group" "$base/etc/nsswitch.conf"
chmod 1777 "$base/tmp"
chmod 0700 "$base/home/nonroot"

# 3. The runtime, and the application with its completion and man pages where a shell and man look.
cp -a "$dist/runtime" "$runtime/opt/idem/runtime"
cp -a "$dist/app" "$app/opt/idem/app"
# The dist's POSIX sh launcher, for task images that copy /opt/idem out of this one: this image has no
# shell to run it (its entrypoint starts java directly), a task image built on a distribution does.
cp -a "$dist/bin" "$app/opt/idem/bin"
mkdir -p "$app/usr/local/share/bash-completion/completions" "$app/usr/local/share/zsh/site-functions" \
  "$app/usr/local/share/fish/vendor_completions.d" "$app/usr/local/share/man"
cp "$dist/completion/idem.bash" "$app/usr/local/share/bash-completion/completions/idem"
cp "$dist/completion/_idem" "$app/usr/local/share/zsh/site-functions/_idem"
cp "$dist/completion/idem.fish" "$app/usr/local/share/fish/vendor_completions.d/idem.fish"
cp -r "$dist/man/man1" "$app/usr/local/share/man/man1"
# Readable by nonroot, writable only by root, whatever umask the dist was built under.
chmod -R u+rwX,go+rX,go-w "$runtime" "$app"

# Each layer: blobs/sha256/DIGEST (gzip'd) and its diff ID (the digest of the uncompressed tar).
layer_digests=()
layer_sizes=()
diff_ids=()
pack() { # DIR [tar options...]
  local dir="$1" raw="$work/layer.tar"
  shift
  (cd "$dir" && tar --create --format=ustar --sort=name --numeric-owner --owner=0 --group=0 \
    --mtime="@$epoch" "$@" --file "$raw" -- *)
  if [ -d "$dir/home/nonroot" ]; then
    (cd "$dir" && tar --append --format=ustar --numeric-owner --owner=65532 --group=65532 \
      --mtime="@$epoch" --no-recursion --file "$raw" home/nonroot)
  fi
  diff_ids+=("sha256:$(sha256sum "$raw" | cut -d' ' -f1)")
  # libdeflate-gzip writes no name and no time into the gzip header: the same layer, the same digest.
  libdeflate-gzip -12 -c "$raw" > "$raw.gz"
  rm "$raw"
  local digest
  digest="$(sha256sum "$raw.gz" | cut -d' ' -f1)"
  mv "$raw.gz" "$work/blobs/sha256/$digest"
  layer_digests+=("$digest")
  layer_sizes+=("$(stat -c %s "$work/blobs/sha256/$digest")")
}
pack "$base" --exclude=home/nonroot
pack "$runtime"
pack "$app"

blob() { # FILE: moves a JSON file into blobs/sha256 and prints "DIGEST SIZE"
  local digest size
  digest="$(sha256sum "$1" | cut -d' ' -f1)"
  size="$(stat -c %s "$1")"
  mv "$1" "$work/blobs/sha256/$digest"
  echo "$digest $size"
}
json_list() { # quoted, comma-separated
  local out="" item
  for item in "$@"; do
    out="$out${out:+,}\"$item\""
  done
  printf '%s' "$out"
}

created="$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)"
entrypoint=(/opt/idem/runtime/bin/java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:disable
  -Xlog:all=error:stderr -XX:AOTCache=/opt/idem/app/idem.aot -Djava.io.tmpdir=/tmp -Didem.jit=per-command
  -cp /opt/idem/app/idem-cli.jar dev.idem.cli.Main)
IFS=' ' read -r -a sorted_packages <<< "$(printf '%s\n' "${packages[@]}" | sort | tr '\n' ' ')"
cat > "$work/config.json" <<EOF
{"created":"$created","architecture":"$oci_arch","os":"linux","config":{"User":"65532:65532","Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":[$(json_list "${entrypoint[@]}")],"Cmd":["--help"],"Labels":{"org.opencontainers.image.title":"idem","org.opencontainers.image.version":"$version","org.opencontainers.image.revision":"$commit","org.opencontainers.image.created":"$created","dev.idem.image.debian-packages":"${sorted_packages[*]}"}},"rootfs":{"type":"layers","diff_ids":[$(json_list "${diff_ids[@]}")]},"history":[{"created":"$created","created_by":"build-image.sh: C libraries from ${sorted_packages[*]}, /etc, /tmp, /home/nonroot"},{"created":"$created","created_by":"build-image.sh: the jlink'd runtime"},{"created":"$created","created_by":"build-image.sh: idem $version, its AOT cache, completion and man pages"}]}
EOF
read -r config_digest config_size < <(blob "$work/config.json")

layers_json=""
for i in "${!layer_digests[@]}"; do
  layers_json="$layers_json${layers_json:+,}{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:${layer_digests[$i]}\",\"size\":${layer_sizes[$i]}}"
done
cat > "$work/manifest.oci.json" <<EOF
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$config_digest","size":$config_size},"layers":[$layers_json]}
EOF
read -r manifest_digest manifest_size < <(blob "$work/manifest.oci.json")

printf '{"imageLayoutVersion":"1.0.0"}\n' > "$work/oci-layout"
cat > "$work/index.json" <<EOF
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$manifest_digest","size":$manifest_size,"platform":{"architecture":"$oci_arch","os":"linux"},"annotations":{"io.containerd.image.name":"docker.io/library/idem:$version","org.opencontainers.image.ref.name":"$version"}}]}
EOF
layer_paths=()
for d in "${layer_digests[@]}"; do
  layer_paths+=("blobs/sha256/$d")
done
cat > "$work/manifest.json" <<EOF
[{"Config":"blobs/sha256/$config_digest","RepoTags":["idem:$version"],"Layers":[$(json_list "${layer_paths[@]}")]}]
EOF

out="$target/idem-image-$version.tar"
(cd "$work" && tar --create --format=ustar --sort=name --numeric-owner --owner=0 --group=0 \
  --mtime="@$epoch" --file "$out.partial" oci-layout index.json manifest.json blobs)
mv "$out.partial" "$out"
compressed=0
for s in "${layer_sizes[@]}"; do
  compressed=$((compressed + s))
done
echo "image: $out (idem:$version, $oci_arch; layers $compressed bytes compressed, C libraries from ${sorted_packages[*]})"

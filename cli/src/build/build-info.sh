#!/usr/bin/env bash
# Writes the build facts `idem --version` prints, as a Maven filter file (the cli module runs this in
# `initialize`; version.properties is filtered with it):
#   idem.commit      $IDEM_COMMIT if set (CI, Docker builds without .git), else the checkout's commit
#                    (with -dirty when tracked files changed), else "unknown" (a source tarball)
#   idem.build.date  UTC, from $SOURCE_DATE_EPOCH when set (reproducible builds), else now
#
# usage: build-info.sh OUT_FILE SOURCE_ROOT
set -euo pipefail

out="$1"
root="$2"

commit="${IDEM_COMMIT:-}"
# Only the project's own .git: a tarball unpacked inside some other repository must not take its commit.
if [ -z "$commit" ] && [ -e "$root/.git" ] && command -v git >/dev/null 2>&1; then
  commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || true)"
  if [ -n "$commit" ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null || true)" ]; then
    commit="$commit-dirty"
  fi
fi
commit="${commit:-unknown}"

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  # GNU date takes -d @N, BSD (macOS) date -r N.
  built="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
else
  built="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
fi

mkdir -p "$(dirname "$out")"
printf 'idem.commit=%s\nidem.build.date=%s\n' "$commit" "$built" > "$out"

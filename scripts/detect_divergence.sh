#!/usr/bin/env bash
# The reference divergence scan of the design's source article (AWS CLI and jq), with its comments and
# blank lines left out: the baseline scripts/scan-shapes.sh runs beside idem scan.
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

#!/usr/bin/env bash
# Builds the control-plane binary into a cache outside the clone and prints
# its path on stdout (nothing else goes to stdout). Idempotent: a binary
# already built from the same sources is reused without invoking Go.
#
#   bin=$(bash tools/control-plane/build.sh)
#
# Cache: ${LIKEN_CACHE:-$HOME/.cache/liken}/control-plane/<key>/control-plane
# where <key> is the first 16 hex digits of the sha256 of go.sum, go.mod and
# the Go sources (go.sum alone would miss edits to main.go).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

# Never download a toolchain: go.mod says go 1.26.0, which Go 1.26.x meets.
export GOTOOLCHAIN=local

key=$(cat go.sum go.mod ./*.go | sha256sum | cut -c1-16)
out="${LIKEN_CACHE:-$HOME/.cache/liken}/control-plane/$key"
bin="$out/control-plane"

if [ ! -x "$bin" ]; then
	# Go from PATH only (.ci/run adds /usr/local/go/bin), so that a PATH
	# without it is a machine without it.
	if ! command -v go >/dev/null 2>&1; then
		echo "control-plane: go not found on PATH: the real-server suites need Go 1.26+ to build kube-apiserver (or a binary in $out)" >&2
		exit 1
	fi
	mkdir -p "$out"
	# The apiserver reports this as its version (kubectl version, /version).
	kube=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' go.mod)
	minor=$(echo "$kube" | cut -d. -f2)
	pkg=k8s.io/component-base/version
	ldflags="-X $pkg.gitVersion=$kube -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	echo "control-plane: building $kube into $out (a cold build takes ~11 min and ~3.5 GiB on 2 cores)" >&2
	# -p 2: at most two compile jobs at once keeps peak memory bounded.
	go build -p "${LIKEN_BUILD_JOBS:-2}" -trimpath -ldflags "$ldflags" -o "$bin.tmp.$$" . >&2
	mv "$bin.tmp.$$" "$bin" # atomic: concurrent builds never see half a binary
fi
echo "$bin"

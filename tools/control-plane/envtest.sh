#!/usr/bin/env bash
# Lays out kube-apiserver and etcd as setup-envtest does (one folder to
# point KUBEBUILDER_ASSETS at), built from the same modules as the control
# plane (go.mod: Kubernetes v1.37.2, etcd v3.7.0), and prints the folder.
# For testing the envtest mode of RealControlPlane here, where
# setup-envtest cannot download its archives. See README.md.
#   export KUBEBUILDER_ASSETS=$(bash tools/control-plane/envtest.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

export GOTOOLCHAIN=local

key=$(cat go.sum go.mod envtest.sh envtest/etcd/*.go | sha256sum | cut -c1-16)
kube=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' go.mod)
# setup-envtest's folder name: <version>-<os>-<arch>.
out="${LIKEN_CACHE:-$HOME/.cache/liken}/envtest/$key/k8s/${kube#v}-linux-amd64"

if [ ! -x "$out/kube-apiserver" ] || [ ! -x "$out/etcd" ]; then
	if ! command -v go >/dev/null 2>&1; then
		echo "envtest: go not found on PATH: building kube-apiserver and etcd needs Go 1.26+ (or point KUBEBUILDER_ASSETS at setup-envtest's binaries)" >&2
		exit 1
	fi
	mkdir -p "$out"
	minor=$(echo "$kube" | cut -d. -f2)
	pkg=k8s.io/component-base/version
	ldflags="-X $pkg.gitVersion=$kube -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	echo "envtest: building kube-apiserver $kube and etcd into $out (shares Go's build cache with control-plane:build)" >&2
	tmp="$out/.tmp.$$"
	mkdir -p "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	go build -p "${LIKEN_BUILD_JOBS:-2}" -trimpath -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
	go build -p "${LIKEN_BUILD_JOBS:-2}" -trimpath -o "$tmp/etcd" ./envtest/etcd >&2
	# atomic: a concurrent run never sees half a binary
	mv "$tmp/kube-apiserver" "$tmp/etcd" "$out/"
fi
echo "$out"

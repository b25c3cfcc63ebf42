#!/usr/bin/env bash
# What the real-server suites run on, for the test tasks (deno task's shell
# has no ${VAR:+...}):
#   plane.sh binary     the built control plane's path, building it when Go
#                       is there; nothing when KUBEBUILDER_ASSETS or
#                       LIKEN_REAL_CLUSTER=1 names another server (building
#                       is the fallback) or when it cannot be built
#   plane.sh assets     KUBEBUILDER_ASSETS when set, else the folder that
#                       envtest.sh lays out (nothing without Go)
#   plane.sh allow-run  the binaries Deno may start for them, comma-separated
#                       (LIKEN_CONTROL_PLANE, KUBEBUILDER_ASSETS/{kube-apiserver,etcd})
set -uo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
case "${1:-}" in
binary)
	if [ -n "${KUBEBUILDER_ASSETS:-}" ] || [ "${LIKEN_REAL_CLUSTER:-}" = 1 ]; then
		exit 0
	fi
	bash "$here/build.sh" || true
	;;
assets)
	if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
		echo "$KUBEBUILDER_ASSETS"
	else
		bash "$here/envtest.sh" || true
	fi
	;;
allow-run)
	list=()
	if [ -n "${LIKEN_CONTROL_PLANE:-}" ]; then list+=("$LIKEN_CONTROL_PLANE"); fi
	if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
		list+=("$KUBEBUILDER_ASSETS/kube-apiserver" "$KUBEBUILDER_ASSETS/etcd")
	fi
	# Deno refuses an empty --allow-run entry: name a harmless program.
	if [ ${#list[@]} -eq 0 ]; then list=(ln); fi
	(IFS=,; echo "${list[*]}")
	;;
*)
	echo "usage: plane.sh binary|assets|allow-run" >&2
	exit 2
	;;
esac

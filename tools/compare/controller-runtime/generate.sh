#!/usr/bin/env bash
# Regenerates what controller-gen derives from the markers: the deepcopy
# functions, the CRD and the RBAC role (kubebuilder's `make generate manifests`).
set -euo pipefail
cd "$(dirname "$0")"
CONTROLLER_GEN=(go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0)
"${CONTROLLER_GEN[@]}" object paths="./..."
"${CONTROLLER_GEN[@]}" rbac:roleName=manager-role crd paths="./..." \
  output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac

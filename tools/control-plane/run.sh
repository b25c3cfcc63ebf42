#!/usr/bin/env bash
# Builds the control plane if needed, then runs `control-plane run "$@"`.
#   bash tools/control-plane/run.sh --dir /tmp/cp
set -euo pipefail
bin=$(bash "$(dirname "${BASH_SOURCE[0]}")/build.sh")
exec "$bin" run "$@"

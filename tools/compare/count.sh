#!/usr/bin/env bash
# Counts the lines of the files a user writes for each version of the
# example operator: total, non-blank, and code (non-blank lines that are not
# wholly a comment: `//`, `/*`, `*`, `*/`). Generated files are left out.
set -euo pipefail
cd "$(dirname "$0")"
count() {
  cat "$@" | awk '
    { total++ }
    /^[[:space:]]*$/ { next }
    { nonblank++ }
    /^[[:space:]]*(\/\/|\/\*|\*)/ { next }
    { code++ }
    END { printf "%d | %d | %d", total, nonblank, code }'
}
row() { local name=$1; shift; echo "| $name | $(count "$@") |"; }
ours=(../../examples/greeting.ts ../../examples/operator.ts)
cr=(controller-runtime/api/v1alpha1/greeting_types.go controller-runtime/api/v1alpha1/groupversion_info.go
  controller-runtime/internal/controller/greeting_controller.go controller-runtime/cmd/main.go)
echo "| files | total | non-blank | code |"
echo "| --- | --- | --- | --- |"
for f in "${ours[@]}" ../../examples/main.ts; do row "\`${f#../../}\`" "$f"; done
row "**@liken/kubernetes: greeting.ts + operator.ts**" "${ours[@]}"
row "**@liken/kubernetes: the same + main.ts**" "${ours[@]}" ../../examples/main.ts
row "**kube-rs: \`src/main.rs\`**" kube-rs/src/main.rs
for f in "${cr[@]}"; do row "\`$f\`" "$f"; done
row "**controller-runtime: the four files**" "${cr[@]}"

#!/usr/bin/env bash
# Counts the lines of the files a user writes for each example operator:
# total, non-blank, and code. Code is a non-blank line with something left
# once comments are taken out: `//` to the end of the line, and `/* ... */`
# blocks wherever they start and end (Go's license headers and the
# kubebuilder book's prose are such blocks). A Go marker comment
# (`// +kubebuilder:...`, `// +optional`, `// +listType=map`) is code: it
# makes the CRD and the RBAC role, as `defineResource` and the controller's
# options do here. The book's `// +kubebuilder:docs-gen:...` lines only fold
# its web page, so they are comments. Generated files are left out.
#
# The CronJob rows count the kubebuilder book's tutorial, which is not
# committed here (third-party code): set KUBEBUILDER_TUTORIAL to its
# `docs/book/src/cronjob-tutorial/testdata/project` folder (any checkout of
# kubernetes-sigs/kubebuilder), or the rows say they were not counted.
# `count.sh FILE...` prints the one line of those files instead.
set -euo pipefail
cd "$(dirname "$0")"
count() {
  cat "$@" | awk '
    function code_left(line,    out, at) {
      out = ""
      while (line != "") {
        if (in_block) {
          at = index(line, "*/")
          if (at == 0) return out
          line = substr(line, at + 2)
          in_block = 0
          continue
        }
        at = index(line, "/*")
        slash = index(line, "//")
        if (slash > 0 && (at == 0 || slash < at)) {
          rest = substr(line, slash)
          if (rest ~ /^\/\/ ?\+/ && rest !~ /^\/\/ ?\+kubebuilder:docs-gen/) {
            return out rest
          }
          return out substr(line, 1, slash - 1)
        }
        if (at == 0) return out line
        out = out substr(line, 1, at - 1)
        line = substr(line, at + 2)
        in_block = 1
      }
      return out
    }
    { total++ }
    /^[[:space:]]*$/ { next }
    { nonblank++ }
    { left = code_left($0) }
    left ~ /[^[:space:]]/ { code++ }
    END { printf "%d | %d | %d", total, nonblank, code }'
}
row() { local name=$1; shift; echo "| $name | $(count "$@") |"; }
# With file arguments: one line, `total | non-blank | code`, of those files.
if (($#)); then
  files=()
  for f in "$@"; do files+=("$(cd "$OLDPWD" && realpath "$f")"); done
  count "${files[@]}"; echo
  exit 0
fi
ours=(../../examples/greeting.ts ../../examples/operator.ts)
cr=(controller-runtime/api/v1alpha1/greeting_types.go controller-runtime/api/v1alpha1/groupversion_info.go
  controller-runtime/internal/controller/greeting_controller.go controller-runtime/cmd/main.go)
cronjob=(../../examples/cronjob/cronjob.ts ../../examples/cronjob/controller.ts)
tutorial=(api/v1/cronjob_types.go internal/controller/cronjob_controller.go)
echo "| files | total | non-blank | code |"
echo "| --- | --- | --- | --- |"
for f in "${ours[@]}" ../../examples/main.ts; do row "\`${f#../../}\`" "$f"; done
row "**@liken/kubernetes: greeting.ts + operator.ts**" "${ours[@]}"
row "**@liken/kubernetes: the same + main.ts**" "${ours[@]}" ../../examples/main.ts
row "**kube-rs: \`src/main.rs\`**" kube-rs/src/main.rs
for f in "${cr[@]}"; do row "\`$f\`" "$f"; done
row "**controller-runtime: the four files**" "${cr[@]}"
for f in "${cronjob[@]}"; do row "\`${f#../../}\`" "$f"; done
row "**@liken/kubernetes: the CronJob definition + controller**" "${cronjob[@]}"
if [[ -n "${KUBEBUILDER_TUTORIAL:-}" ]]; then
  for f in "${tutorial[@]}"; do row "kubebuilder book: \`$f\`" "$KUBEBUILDER_TUTORIAL/$f"; done
  row "**kubebuilder book: the CronJob types + controller**" "${tutorial[@]/#/$KUBEBUILDER_TUTORIAL/}"
else
  echo "| kubebuilder book: the CronJob types + controller | not counted: set KUBEBUILDER_TUTORIAL | | |"
fi

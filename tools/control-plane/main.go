// Command control-plane runs a real Kubernetes control plane on 127.0.0.1
// for tests: embedded etcd, kube-apiserver and kube-controller-manager
// (garbage collector, namespace, service account controllers), all built
// from the Kubernetes release pinned in go.mod.
//
// Subcommands:
//
//	control-plane run [--dir DIR] [flags]   start everything, print one JSON ready line
//	control-plane compact --etcd URL        compact etcd at its current revision
//	control-plane apiserver ARGS...         kube-apiserver (used by run as a child)
//	control-plane controllers ARGS...       kube-controller-manager (used by run as a child)
//
// The apiserver and the controller manager each run in a child process of
// the same binary: both install process-wide state (signal handlers, feature
// gates, metrics registries, klog flags) that cannot be shared by two
// components in one process.
package main

import (
	"fmt"
	"os"

	_ "time/tzdata" // as in the upstream mains: CronJob time zones

	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
)

const usage = `usage:
  control-plane run [--dir DIR] [--no-watch-cache-server] [--audit-level Metadata]
                    [--controllers LIST] [--apiserver-arg ARG]... [--controllers-arg ARG]...
  control-plane compact --etcd http://127.0.0.1:PORT
  control-plane apiserver KUBE-APISERVER-FLAGS...
  control-plane controllers KUBE-CONTROLLER-MANAGER-FLAGS...
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "run":
		os.Exit(runMain(args))
	case "compact":
		os.Exit(compactMain(args))
	case "apiserver":
		os.Exit(apiserverMain(args))
	case "controllers":
		os.Exit(controllersMain(args))
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "control-plane: unknown subcommand %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
}

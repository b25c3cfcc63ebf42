package main

import (
	"io"
	"os"
	"syscall"

	"k8s.io/component-base/cli"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

// parentPipeEnv is set by `run` for its children, whose stdin is a pipe
// from the parent. When the parent dies, however it dies, the pipe
// closes and the child terminates itself: no orphans.
const parentPipeEnv = "LIKEN_CONTROL_PLANE_PARENT_PIPE"

func exitWhenParentGoes() {
	if os.Getenv(parentPipeEnv) != "1" {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		// SIGTERM rather than os.Exit: the apiserver shuts down gracefully
		// on it; the controller manager has no handler and just exits.
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}()
}

// apiserverMain is the upstream kube-apiserver main with explicit args.
func apiserverMain(args []string) int {
	exitWhenParentGoes()
	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(args)
	return cli.Run(cmd)
}

// controllersMain is the upstream kube-controller-manager main with
// explicit args.
func controllersMain(args []string) int {
	exitWhenParentGoes()
	cmd := controllermanager.NewControllerManagerCommand()
	cmd.SetArgs(args)
	return cli.Run(cmd)
}

// Command etcd is upstream etcd's own main (etcdmain) built from the etcd
// release in ../../go.mod, so that envtest.sh can lay out an etcd binary as
// setup-envtest does without downloading one.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}

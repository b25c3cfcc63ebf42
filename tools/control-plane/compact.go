package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// compactMain compacts etcd at its current revision, so that any watch or
// list from an older resourceVersion gets "410 Gone" (on an apiserver with
// --watch-cache=false at once; a watch cache serves its own window).
// Prints {"revision":N}.
func compactMain(args []string) int {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	endpoint := fs.String("etcd", "", `etcd client URL (the ready line's "etcd")`)
	if err := fs.Parse(args); err != nil || *endpoint == "" {
		logf("compact: --etcd URL is required")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: []string{*endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
	})
	if err != nil {
		logf("compact: %v", err)
		return 1
	}
	defer cli.Close()
	// Any read returns the store's current revision in its header.
	resp, err := cli.Get(ctx, "compact-revision-probe", clientv3.WithCountOnly())
	if err != nil {
		logf("compact: %v", err)
		return 1
	}
	rev := resp.Header.Revision
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		logf("compact: %v", err)
		return 1
	}
	out, _ := json.Marshal(map[string]int64{"revision": rev})
	fmt.Println(string(out))
	return 0
}

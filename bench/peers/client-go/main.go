// A client-go SharedInformer on ConfigMaps or Pods (--kind; all namespaces)
// against the replay server: first full sync, heap after sync, RSS, then
// watch events/s. Prints one JSON line once it posted /_replay/done, then
// runs on (the server ends the watch with a 410 and times the relist) until
// the driver kills it. See bench/scale/run.ts.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// procStatus reads a field of /proc/self/status in bytes (VmRSS, VmHWM).
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			parts := strings.Fields(line)
			kb, _ := strconv.ParseInt(parts[1], 10, 64)
			return kb * 1024
		}
	}
	return -1
}

func main() {
	url := flag.String("url", os.Getenv("REPLAY_URL"), "replay server URL")
	objects := flag.Int("objects", 0, "objects the list holds")
	events := flag.Int64("events", 0, "watch events to count")
	kind := flag.String("kind", "configmaps", "configmaps or pods")
	flag.Parse()

	cfg := &rest.Config{
		Host: *url,
		// JSON, as every peer reads it; no gzip (the replay server serves
		// identity to all, and Go would otherwise ask for gzip).
		ContentConfig:      rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"},
		DisableCompression: true,
		QPS:                -1,
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactory(cs, 0)
	// The typed informer of the kind, as a controller would use.
	var informer cache.SharedIndexInformer
	if *kind == "pods" {
		informer = factory.Core().V1().Pods().Informer()
	} else {
		informer = factory.Core().V1().ConfigMaps().Informer()
	}
	// The same managedFields handling as the other peers: stripped before
	// caching (controller-runtime's TransformStripManagedFields does this).
	_ = informer.SetTransform(func(o interface{}) (interface{}, error) {
		if m, ok := o.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
		return o, nil
	})
	var updates atomic.Int64
	done := make(chan struct{})
	var started time.Time
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj interface{}) {
			switch obj.(type) {
			case *corev1.ConfigMap, *corev1.Pod:
			default:
				panic(fmt.Sprintf("unexpected %T", obj))
			}
			if updates.Add(1) == *events {
				close(done)
			}
		},
	})

	// The heap before the informer starts, so that the driver can count
	// what the cache adds (the runtime's own heap is not the cache's).
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	t0 := time.Now()
	factory.Start(stop)
	// Poll every millisecond: WaitForCacheSync polls every 100 ms, which
	// would round the sync time up.
	for !informer.HasSynced() {
		time.Sleep(time.Millisecond)
	}
	syncMs := float64(time.Since(t0).Microseconds()) / 1000
	size := len(informer.GetStore().ListKeys())

	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := procStatus("VmRSS")

	started = time.Now()
	resp, err := http.Post(*url+"/_replay/go", "text/plain", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	resp.Body.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		fmt.Fprintln(os.Stderr, "timed out waiting for events")
		os.Exit(1)
	}
	watchS := time.Since(started).Seconds()
	// The end of the watch phase: the driver reads the CPU time, then the
	// server sends the 410.
	resp, err = http.Post(*url+"/_replay/done", "text/plain", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	resp.Body.Close()

	out, _ := json.Marshal(map[string]interface{}{
		"peer":            "client-go",
		"version":         "client-go v0.37.2, " + runtime.Version(),
		"objects":         size,
		"expected":        *objects,
		"syncMs":          syncMs,
		"heap":            ms.HeapInuse,
		"heapBase":        base.HeapInuse,
		"rss":             rss,
		"peakRss":         procStatus("VmHWM"),
		"events":          *events,
		"eventsPerSecond": float64(*events) / watchS,
	})
	fmt.Println(string(out))
	// The informer relists after the 410; the driver kills the process.
	<-stop
}

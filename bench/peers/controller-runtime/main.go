// A controller-runtime controller on ConfigMaps (all namespaces) against the
// latency bench's server (bench/latency/_server.ts): it syncs, reconciles
// every object once, then asks for one phase of changes after another and
// times each reconcile's start against the stamp the server wrote into the
// object. Prints one JSON line of the shape bench/latency/_phase.ts names.
//
// With --queue-memory=N it instead adds N distinct keys to client-go's
// workqueue and prints the live heap a key costs (the keys' own strings
// excluded), for the queue-memory row of the latency bench.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/go-logr/logr"
)

// sent is the annotation the server stamps each change with: "<phase> <ms>".
const sent = "bench.liken.dev/sent"

// phase is one phase's figures, as every peer prints them.
type phase struct {
	Rate       float64 `json:"rate"`
	Events     int     `json:"events"`
	Reconciled int     `json:"reconciled"`
	SentRate   float64 `json:"sentRate"`
	P50        float64 `json:"p50"`
	P90        float64 `json:"p90"`
	P99        float64 `json:"p99"`
	Max        float64 `json:"max"`
	DrainMs    float64 `json:"drainMs"`
	MaxDepth   int     `json:"maxDepth"`
	Sustained  bool    `json:"sustained"`
}

// wallClock is the server's clock: ms since the epoch, with a fraction.
func wallClock() float64 {
	return float64(time.Now().UnixNano()) / 1e6
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p * float64(len(sorted))))
	rank = min(len(sorted), max(1, rank))
	return sorted[rank-1]
}

func result(rate float64, events int, latencies, stamps []float64, lastStart float64) phase {
	sorted := append([]float64(nil), latencies...)
	sort.Float64s(sorted)
	first, last := math.Inf(1), math.Inf(-1)
	for _, s := range stamps {
		first = math.Min(first, s)
		last = math.Max(last, s)
	}
	span := (last - first) / 1000
	sentRate := math.NaN()
	if span > 0 {
		sentRate = float64(len(stamps)-1) / span
	}
	maxL := percentile(sorted, 1)
	return phase{
		Rate: rate, Events: events, Reconciled: len(latencies), SentRate: sentRate,
		P50: percentile(sorted, 0.5), P90: percentile(sorted, 0.9),
		P99: percentile(sorted, 0.99), Max: maxL, DrainMs: lastStart - last,
		MaxDepth:  -1,
		Sustained: len(latencies) == events && !(sentRate < 0.9*rate) && maxL < 1000,
	}
}

// recorder holds what the reconciles of the current phase saw.
type recorder struct {
	mu        sync.Mutex
	objects   int
	initial   int
	warm      chan struct{}
	phase     int
	events    int
	latencies []float64
	stamps    []float64
	lastStart float64
	done      chan struct{}
	late      int
}

type reconciler struct {
	client client.Client
	rec    *recorder
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	start := wallClock()
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	rec := r.rec
	rec.mu.Lock()
	defer rec.mu.Unlock()
	stamp, ok := cm.Annotations[sent]
	if !ok {
		rec.initial++
		if rec.initial == rec.objects {
			close(rec.warm)
		}
		return reconcile.Result{}, nil
	}
	k, ms, _ := strings.Cut(stamp, " ")
	p, _ := strconv.Atoi(k)
	at, _ := strconv.ParseFloat(ms, 64)
	if rec.done == nil || p != rec.phase {
		rec.late++
		return reconcile.Result{}, nil
	}
	rec.latencies = append(rec.latencies, start-at)
	rec.stamps = append(rec.stamps, at)
	rec.lastStart = start
	if len(rec.latencies) == rec.events {
		close(rec.done)
	}
	return reconcile.Result{}, nil
}

// queueMemory adds n distinct keys to client-go's workqueue and prints the
// live heap each costs beyond its key's string.
func queueMemory(n int) {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("default/cm-%07d", i)
	}
	runtime.GC()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	q := workqueue.NewTyped[string]()
	for _, k := range keys {
		q.Add(k)
	}
	runtime.GC()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	out, _ := json.Marshal(map[string]any{
		"peer":        "client-go workqueue",
		"version":     "client-go v0.37.2, " + runtime.Version(),
		"keys":        q.Len(),
		"bytesPerKey": float64(after.HeapAlloc-before.HeapAlloc) / float64(n),
	})
	runtime.KeepAlive(keys)
	fmt.Println(string(out))
}

type goAnswer struct {
	Done   bool    `json:"done"`
	Rate   float64 `json:"rate"`
	Events int     `json:"events"`
}

func main() {
	url := flag.String("url", "", "latency server URL")
	objects := flag.Int("objects", 0, "objects the list holds")
	concurrency := flag.Int("concurrency", 1, "MaxConcurrentReconciles")
	timeoutMs := flag.Int("timeout", 60_000, "longest wait for a phase, ms")
	qm := flag.Int("queue-memory", 0, "measure the workqueue at this many keys")
	flag.Parse()
	if *qm > 0 {
		queueMemory(*qm)
		return
	}
	log.SetLogger(logr.Discard())

	cfg := &rest.Config{
		Host: *url,
		// JSON, as every peer reads it (controller-runtime would pick
		// protobuf for built-in types); no gzip.
		ContentConfig:      rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"},
		DisableCompression: true,
		QPS:                -1,
	}
	scheme := k8sruntime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The default RESTMapper, as a real manager has: it maps ConfigMap
		// through the server's discovery (GET /api, /apis, /api/v1) once,
		// before the cache starts; discovery is no part of the change path.
		// The same managedFields handling as the other peers.
		Cache: cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rec := &recorder{objects: *objects, warm: make(chan struct{})}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Named("latency").
		WithOptions(controller.Options{MaxConcurrentReconciles: *concurrency}).
		Complete(&reconciler{client: mgr.GetClient(), rec: rec})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Now()
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}()
	select {
	case <-rec.warm:
	case <-time.After(10 * time.Minute):
		fmt.Fprintln(os.Stderr, "timed out waiting for the first reconciles")
		os.Exit(1)
	}
	readyMs := float64(time.Since(t0).Microseconds()) / 1000

	var phases []phase
	for k := 0; ; k++ {
		// The phase is set before it is asked for: a change the server
		// sends before its answer arrives is counted too. Its size comes
		// with the answer.
		done := make(chan struct{})
		rec.mu.Lock()
		rec.phase, rec.events, rec.done = k, math.MaxInt, done
		rec.latencies = rec.latencies[:0]
		rec.stamps = rec.stamps[:0]
		rec.lastStart = 0
		rec.mu.Unlock()
		resp, err := http.Post(fmt.Sprintf("%s/_replay/go?phase=%d", *url, k), "text/plain", nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var answer goAnswer
		_ = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if answer.Done {
			break
		}
		rec.mu.Lock()
		rec.events = answer.Events
		if len(rec.latencies) >= rec.events {
			close(done)
		}
		rec.mu.Unlock()
		select {
		case <-done:
		case <-time.After(time.Duration(*timeoutMs) * time.Millisecond):
		}
		rec.mu.Lock()
		r := result(answer.Rate, answer.Events, rec.latencies, rec.stamps, rec.lastStart)
		rec.done = nil
		rec.phase = -1
		rec.mu.Unlock()
		phases = append(phases, r)
		// Past its rate the queue only grows: higher rates would tell nothing.
		if !r.Sustained {
			break
		}
	}
	rec.mu.Lock()
	late := rec.late
	rec.mu.Unlock()
	var list corev1.ConfigMapList
	_ = mgr.GetCache().List(ctx, &list)
	out, _ := json.Marshal(map[string]any{
		"peer":        "controller-runtime",
		"version":     "controller-runtime v0.25.3, client-go v0.37.2, " + runtime.Version(),
		"concurrency": *concurrency,
		"objects":     len(list.Items),
		"readyMs":     readyMs,
		"late":        late,
		"phases":      phases,
	})
	fmt.Println(string(out))
	os.Exit(0)
}

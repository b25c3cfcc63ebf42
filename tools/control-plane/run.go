package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/component-base/version"
)

const (
	// Service IPs are only allocated, never dialled: nothing here routes
	// to them. A private range as in kubeadm's default.
	serviceCIDR = "10.96.0.0/16"
	serviceIP   = "10.96.0.1"

	defaultControllers = "garbage-collector-controller,namespace-controller," +
		"serviceaccount-controller,serviceaccount-token-controller"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// readyLine is printed once, as one JSON line on stdout, when the control
// plane serves requests. After it, stdout carries only the answers to
// commands read from stdin (restartedLine).
type readyLine struct {
	Ready              bool   `json:"ready"`
	Server             string `json:"server"`
	ServerNoWatchCache string `json:"serverNoWatchCache,omitempty"`
	Kubeconfig         string `json:"kubeconfig"`
	Token              string `json:"token"`
	CA                 string `json:"ca"`
	Etcd               string `json:"etcd"`
	Dir                string `json:"dir"`
	AuditLog           string `json:"auditLog"`
	Version            string `json:"version"`
	Pid                int    `json:"pid"`
	StartupMillis      int64  `json:"startupMillis"`
	// Users holds a bearer token per --user name (group liken:users).
	Users map[string]string `json:"users,omitempty"`
}

// restartedLine answers a "restart" command on stdout, one JSON line.
type restartedLine struct {
	Restarted string `json:"restarted"`
	Error     string `json:"error,omitempty"`
	// StopMillis is how long the old process took to exit, ReadyMillis how
	// long from its exit until the new one answered /readyz.
	StopMillis  int64 `json:"stopMillis"`
	ReadyMillis int64 `json:"readyMillis"`
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "control-plane: "+format+"\n", args...)
}

// child is one component process (the same binary, another subcommand).
type child struct {
	name  string
	log   string
	cmd   *exec.Cmd
	stdin io.WriteCloser // closing it asks the child to exit
	done  chan struct{}
	err   error
	args  []string
	// replaced marks a child stopped on purpose by a restart: its exit is
	// not a failure.
	replaced bool
}

func startChild(name, logPath string, args []string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// Appending: a restarted component keeps the log of its predecessor.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), parentPipeEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own process group: a terminal's Ctrl-C reaches only us, and we
		// stop the children in order (controllers, apiservers, etcd).
		Setpgid: true,
		// Belt and braces with the stdin pipe: the kernel signals the
		// child if we die. (Tied to the forking thread; runMain locks it.)
		Pdeathsig: syscall.SIGTERM,
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	c := &child{name: name, log: logPath, cmd: cmd, stdin: stdin, done: make(chan struct{}), args: args}
	go func() {
		c.err = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	return c, nil
}

// stop asks the child to terminate and kills it after the grace period.
func (c *child) stop(grace time.Duration) {
	_ = c.stdin.Close()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		logf("%s did not stop within %s; killing it", c.name, grace)
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// tail prints the end of a child's log, for a failure report.
func (c *child) tail() {
	b, err := os.ReadFile(c.log)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	logf("last lines of %s:\n%s", c.log, strings.Join(lines, "\n"))
}

// freePorts asks the kernel for n distinct free loopback ports. They are
// released before use, so another process could take one meanwhile; on
// loopback in a test machine that race is rare and fails loudly.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func startEtcd(dir string, clientPort, peerPort int) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "control-plane"
	cfg.Dir = filepath.Join(dir, "etcd")
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogOutputs = []string{filepath.Join(dir, "etcd.log")}
	cfg.LogLevel = "warn"
	// Throwaway test data: skipping fsync makes every write much cheaper.
	cfg.UnsafeNoFsync = true
	// No auto-compaction (the default): compaction happens only when a
	// test asks for it, so "410 Gone" is deterministic.
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, clientURL.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", errors.New("etcd did not become ready within 60s")
	}
}

func auditPolicy(level string) string {
	// RequestReceived is omitted: one line per request (two for watches).
	return "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: " + level + "\n"
}

type apiserverConfig struct {
	dir, etcdURL, issuer, auditLog, policyFile string
	port                                       int
	watchCache                                 bool
	extra                                      []string
}

func apiserverArgs(p *pki, c apiserverConfig) []string {
	args := []string{
		"apiserver",
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", c.port),
		"--tls-cert-file=" + p.servingCertFile,
		"--tls-private-key-file=" + p.servingKeyFile,
		"--cert-dir=" + filepath.Join(c.dir, "apiserver-certs"), // unused: certs given
		"--client-ca-file=" + p.caFile,
		"--token-auth-file=" + p.tokenAuthFile,
		"--etcd-servers=" + c.etcdURL,
		"--etcd-compaction-interval=0",
		fmt.Sprintf("--watch-cache=%t", c.watchCache),
		"--service-cluster-ip-range=" + serviceCIDR,
		"--service-account-issuer=" + c.issuer,
		"--service-account-key-file=" + p.saPubFile,
		"--service-account-signing-key-file=" + p.saKeyFile,
		"--authorization-mode=RBAC",
		"--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
		"--audit-policy-file=" + c.policyFile,
		"--audit-log-path=" + c.auditLog,
		// The endpoint reconciler refuses a loopback advertise address, and
		// nothing here dials Service "kubernetes": leave it without
		// endpoints (this also keeps a second apiserver from fighting the
		// first over them).
		"--endpoint-reconciler-type=none",
	}
	return append(args, c.extra...)
}

func writeKubeconfig(path string, caPEM []byte, servers map[string]string, current string, user *clientcmdapi.AuthInfo) error {
	cfg := clientcmdapi.NewConfig()
	cfg.AuthInfos["admin"] = user
	for name, server := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: "admin"}
	}
	cfg.CurrentContext = current
	return clientcmd.WriteToFile(*cfg, path)
}

// poll GETs url with the token until it answers 200, ctx ends or a child
// dies.
func poll(ctx context.Context, client *http.Client, token, url string, died <-chan *child) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case c := <-died:
			return fmt.Errorf("%s exited: %v", c.name, c.err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func runMain(args []string) int {
	start := time.Now()
	// Children are forked from this thread only, so Pdeathsig (tied to the
	// forking thread) fires when the process dies, not when a thread exits.
	runtime.LockOSThread()

	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	dirFlag := fs.String("dir", "", "state directory (default: a new temp dir, removed on exit)")
	noWatchCache := fs.Bool("no-watch-cache-server", false,
		"also start a second apiserver with --watch-cache=false on the same etcd")
	auditLevel := fs.String("audit-level", "Metadata", "audit level of every request: Metadata, Request or RequestResponse")
	controllers := fs.String("controllers", defaultControllers, "kube-controller-manager --controllers; empty: no controller manager")
	watchStdin := fs.String("watch-stdin", "auto", "exit when stdin closes: auto (when stdin is a pipe or socket), true, false")
	readyTimeout := fs.Duration("ready-timeout", 3*time.Minute, "give up if not ready by then")
	var apiExtra, cmExtra, users multiFlag
	fs.Var(&users, "user", "a user with a static bearer token of its own, in group liken:users (repeatable)")
	fs.Var(&apiExtra, "apiserver-arg", "extra kube-apiserver flag (repeatable), e.g. --apiserver-arg=--v=2")
	fs.Var(&cmExtra, "controllers-arg", "extra kube-controller-manager flag (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}

	// Stop on SIGINT/SIGTERM and, for a parent that talks through a pipe,
	// when our stdin closes: a Deno parent that dies leaves no orphans.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		cancel(fmt.Errorf("received %s", s))
	}()
	// Commands arrive as lines on stdin ("restart apiserver" stops the
	// apiserver by SIGTERM, "restart apiserver kill" by SIGKILL, and starts
	// it again with the same flags); they run on the main goroutine, whose
	// thread forks the children (Pdeathsig).
	commands := make(chan string)
	if stdinIsWatched(*watchStdin) {
		go func() {
			scanner := bufio.NewScanner(os.Stdin)
			for scanner.Scan() {
				commands <- strings.TrimSpace(scanner.Text())
			}
			cancel(errors.New("stdin closed"))
		}()
	}

	dir, removeDir := *dirFlag, false
	if dir == "" {
		d, err := os.MkdirTemp("", "control-plane-")
		if err != nil {
			logf("%v", err)
			return 1
		}
		dir, removeDir = d, true
	}
	dir, _ = filepath.Abs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		logf("%v", err)
		return 1
	}
	// Every run is a fresh cluster: new keys, empty etcd.
	_ = os.RemoveAll(filepath.Join(dir, "etcd"))

	var children []*child
	var etcd *embed.Etcd
	shutdown := func() {
		// Controllers first (they would log errors against a gone
		// apiserver), then the apiservers together, then etcd.
		for i := len(children) - 1; i >= 0; i-- {
			if children[i].name == "controllers" {
				children[i].stop(10 * time.Second)
			}
		}
		for _, c := range children {
			go c.stop(30 * time.Second)
		}
		for _, c := range children {
			<-c.done
		}
		if etcd != nil {
			etcd.Close()
		}
		if removeDir {
			_ = os.RemoveAll(dir)
		}
	}
	fail := func(format string, a ...any) int {
		logf(format, a...)
		shutdown()
		return 1
	}

	p, err := makePKI(dir, users)
	if err != nil {
		return fail("generating certificates: %v", err)
	}
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policyFile, []byte(auditPolicy(*auditLevel)), 0o644); err != nil {
		return fail("%v", err)
	}
	ports, err := freePorts(4)
	if err != nil {
		return fail("finding free ports: %v", err)
	}
	etcd, etcdURL, err := startEtcd(dir, ports[0], ports[1])
	if err != nil {
		return fail("starting etcd: %v (see %s)", err, filepath.Join(dir, "etcd.log"))
	}

	server := fmt.Sprintf("https://127.0.0.1:%d", ports[2])
	base := apiserverConfig{
		dir: dir, etcdURL: etcdURL, issuer: server, policyFile: policyFile, extra: apiExtra,
	}
	first := base
	first.port, first.watchCache = ports[2], true
	first.auditLog = filepath.Join(dir, "audit.log")
	servers := map[string]string{"control-plane": server}
	died := make(chan *child, 4)
	spawn := func(name, log string, args []string) error {
		c, err := startChild(name, log, args)
		if err != nil {
			return err
		}
		children = append(children, c)
		go func() { <-c.done; died <- c }()
		return nil
	}
	if err := spawn("apiserver", filepath.Join(dir, "apiserver.log"), apiserverArgs(p, first)); err != nil {
		return fail("starting apiserver: %v", err)
	}
	serverNoWC := ""
	if *noWatchCache {
		serverNoWC = fmt.Sprintf("https://127.0.0.1:%d", ports[3])
		second := base
		second.port = ports[3]
		second.auditLog = filepath.Join(dir, "audit-no-watch-cache.log")
		if err := spawn("apiserver-no-watch-cache", filepath.Join(dir, "apiserver-no-watch-cache.log"),
			apiserverArgs(p, second)); err != nil {
			return fail("starting second apiserver: %v", err)
		}
		servers["no-watch-cache"] = serverNoWC
	}

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(p.caPEM)
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
	}
	readyCtx, cancelReady := context.WithTimeoutCause(ctx, *readyTimeout, errors.New("not ready in time"))
	defer cancelReady()
	waitFor := func(url string) error {
		if err := poll(readyCtx, client, p.adminToken, url, died); err != nil {
			for _, c := range children {
				c.tail()
			}
			return err
		}
		return nil
	}
	for _, s := range servers {
		if err := waitFor(s + "/readyz"); err != nil {
			return fail("waiting for %s/readyz: %v", s, err)
		}
	}

	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, p.caPEM, servers, "control-plane",
		&clientcmdapi.AuthInfo{Token: p.adminToken}); err != nil {
		return fail("%v", err)
	}
	// The same admin, by client certificate, for clients that prefer one.
	if err := writeKubeconfig(filepath.Join(dir, "admin-cert.kubeconfig"), p.caPEM, servers, "control-plane",
		&clientcmdapi.AuthInfo{ClientCertificate: p.adminCertFile, ClientKey: p.adminKeyFile}); err != nil {
		return fail("%v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(p.adminToken+"\n"), 0o600); err != nil {
		return fail("%v", err)
	}

	if *controllers != "" {
		cmKubeconfig := filepath.Join(dir, "controllers.kubeconfig")
		if err := writeKubeconfig(cmKubeconfig, p.caPEM, map[string]string{"control-plane": server}, "control-plane",
			&clientcmdapi.AuthInfo{Token: p.controllersToken}); err != nil {
			return fail("%v", err)
		}
		cmArgs := append([]string{
			"controllers",
			"--kubeconfig=" + cmKubeconfig,
			"--controllers=" + *controllers,
			"--leader-elect=false",
			"--secure-port=0", // no metrics/health endpoint: no port to pick
			"--use-service-account-credentials=false",
			"--service-account-private-key-file=" + p.saKeyFile,
			"--root-ca-file=" + p.caFile,
		}, cmExtra...)
		if err := spawn("controllers", filepath.Join(dir, "controllers.log"), cmArgs); err != nil {
			return fail("starting controllers: %v", err)
		}
		// The default ServiceAccount appearing shows the controller
		// manager is up and talking to the apiserver.
		if strings.Contains(*controllers, "serviceaccount-controller") {
			if err := waitFor(server + "/api/v1/namespaces/default/serviceaccounts/default"); err != nil {
				return fail("waiting for the controllers: %v", err)
			}
		}
	}

	line, _ := json.Marshal(readyLine{
		Ready: true, Server: server, ServerNoWatchCache: serverNoWC,
		Kubeconfig: kubeconfig, Token: p.adminToken, CA: p.caFile, Etcd: etcdURL,
		Dir: dir, AuditLog: first.auditLog, Version: version.Get().GitVersion,
		Pid: os.Getpid(), StartupMillis: time.Since(start).Milliseconds(),
		Users: p.userTokens,
	})
	fmt.Println(string(line))

	restart := func(command string) restartedLine {
		fields := strings.Fields(command)
		if len(fields) < 2 || fields[0] != "restart" {
			return restartedLine{Error: "unknown command"}
		}
		answer := restartedLine{Restarted: fields[1]}
		at := -1
		for i, c := range children {
			if c.name == fields[1] && strings.HasPrefix(c.name, "apiserver") {
				at = i
			}
		}
		if at == -1 {
			answer.Error = "no such apiserver"
			return answer
		}
		old := children[at]
		old.replaced = true
		began := time.Now()
		if len(fields) > 2 && fields[2] == "kill" {
			_ = old.cmd.Process.Kill()
			<-old.done
		} else {
			old.stop(30 * time.Second)
		}
		answer.StopMillis = time.Since(began).Milliseconds()
		began = time.Now()
		c, err := startChild(old.name, old.log, old.args)
		if err != nil {
			answer.Error = err.Error()
			return answer
		}
		children[at] = c
		go func() { <-c.done; died <- c }()
		url := server
		if old.name != "apiserver" {
			url = serverNoWC
		}
		readyCtx, cancelReady := context.WithTimeout(ctx, 2*time.Minute)
		defer cancelReady()
		if err := poll(readyCtx, client, p.adminToken, url+"/readyz", nil); err != nil {
			answer.Error = err.Error()
		}
		answer.ReadyMillis = time.Since(began).Milliseconds()
		return answer
	}
	for {
		select {
		case <-ctx.Done():
			logf("stopping: %v", context.Cause(ctx))
			shutdown()
			return 0
		case c := <-died:
			if c.replaced {
				continue
			}
			c.tail()
			return fail("%s exited unexpectedly: %v", c.name, c.err)
		case command := <-commands:
			answer, _ := json.Marshal(restart(command))
			fmt.Println(string(answer))
			continue
		case err := <-etcd.Err():
			return fail("etcd failed: %v", err)
		}
	}
}

func stdinIsWatched(mode string) bool {
	switch mode {
	case "true":
		return true
	case "false":
		return false
	}
	st, err := os.Stdin.Stat()
	if err != nil {
		return false
	}
	// A pipe or socket means a parent process holds the other end;
	// /dev/null (as in CI) or a terminal does not.
	return st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

package llm

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heldDialer dials for real, but while held a dial waits for its release
// (a slow TCP or TLS handshake).
type heldDialer struct {
	mu      sync.Mutex
	hold    chan struct{} // nil: not held
	started atomic.Int32  // dials that reached the network
}

func (d *heldDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.started.Add(1)
	d.mu.Lock()
	hold := d.hold
	d.mu.Unlock()
	if hold != nil {
		<-hold
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// until polls cond until it holds; it fails only after a minute (what it
// waits for is in this process: a goroutine's next step).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
	}
}

// TestNoDialForNobody: a request that finds no idle connection dials, and
// if another request's connection frees first it takes that one; its dial
// goes on for nobody. The next request that finds no idle connection must
// not dial a third connection when that dial's will do: two requests in
// flight at most, two connections.
func TestNoDialForNobody(t *testing.T) {
	var accepted atomic.Int32
	release := map[string]chan struct{}{"/a": make(chan struct{}), "/b": make(chan struct{})}
	entered := make(chan string, 4)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ch, ok := release[r.URL.Path]; ok {
			entered <- r.URL.Path
			<-ch
		}
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	d := &heldDialer{}
	client := newHTTPClient(4, d.dial)
	g := client.Transport.(quotaTransport).next.(gatedTransport).g
	g.wait = time.Hour // no dial gets past the gate by waiting long
	waiting := func() int { g.mu.Lock(); defer g.mu.Unlock(); return g.waiting }
	get := func(path string) {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	async := func(path string) { wg.Add(1); go func() { defer wg.Done(); get(path) }() }

	get("/fast") // connection 1, idle
	async("/a")  // holds connection 1
	if p := <-entered; p != "/a" {
		t.Fatalf("entered %s", p)
	}
	hold := make(chan struct{})
	d.mu.Lock()
	d.hold = hold
	d.mu.Unlock()
	done3 := make(chan struct{})
	go func() { defer close(done3); get("/fast") }() // no idle connection: dials (held)
	until(t, "the second dial", func() bool { return d.started.Load() == 2 })
	close(release["/a"]) // connection 1 frees and goes to the waiting request
	<-done3              // its dial goes on, for nobody
	async("/b")          // takes connection 1 again
	if p := <-entered; p != "/b" {
		t.Fatalf("entered %s", p)
	}
	done5 := make(chan struct{})
	go func() { defer close(done5); get("/fast") }() // no idle connection: waits for the dial under way
	until(t, "the request to wait at the gate or dial", func() bool { return waiting() == 1 || d.started.Load() == 3 })
	close(hold)
	<-done5
	close(release["/b"])
	wg.Wait()
	until(t, "the dial at the gate to give up, its request served", func() bool { return waiting() == 0 })
	if n := accepted.Load(); n > 2 {
		t.Fatalf("%d connections for at most 2 requests in flight (%d dials reached the network)", n, d.started.Load())
	}
	// The client's CloseIdleConnections reaches the transport, and the gate
	// counts every connection closed and every request done.
	client.CloseIdleConnections()
	g.mu.Lock()
	conns, inflight := g.conns, g.inflight
	g.mu.Unlock()
	if conns != 0 || inflight != 0 {
		t.Fatalf("after every request and CloseIdleConnections the gate counts %d connections, %d requests in flight", conns, inflight)
	}
}

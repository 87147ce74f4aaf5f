package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// connGate keeps a transport's TCP connections at most as many as the
// requests in flight through it.
//
// Written by hand because net/http has no such bound. Go's transport starts
// a dial for every request that finds no idle connection, and a request whose
// dial is still under way takes the first connection another request frees:
// its dial goes on for nobody, and the connection it brings is one too many
// (64 calls in flight at --concurrency 64 opened 65–66). Transport's
// MaxConnsPerHost would stop that, but it is fixed when the transport is
// made, and one endpoint's transport carries the calls of every model of
// that endpoint, whose concurrency limits each ramp up and down on their own:
// any fixed cap is too low for some mix of them.
//
// So a dial waits at the gate while the connections open or being dialled
// already cover the requests in flight (the requests waiting for one are
// then at most as many as the dials under way, whose connections go to them
// as they come), and gives up once its request has a connection from
// elsewhere. A dial waits at most gateWait: a transport that reaches more
// than one host (a redirect) could otherwise have its idle connections to
// one host hold back a dial to the other.
type connGate struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	wait time.Duration // the longest a dial waits (gateWait)

	mu       sync.Mutex
	inflight int           // requests sent and not yet done
	conns    int           // connections open, or dialled past the gate
	waiting  int           // dials waiting at the gate
	wake     chan struct{} // closed when a waiting dial should look again; nil: none waits
}

// gateWait is the longest a dial waits at the gate.
const gateWait = time.Second

// errOrphanDial is the error of a dial whose request took another
// connection while it waited: the transport drops it, as no request waits
// for it.
var errOrphanDial = errors.New("llm: dial not needed: its request has a connection")

// connWant is what the gate knows of one request: whether it waits for a
// connection now (between the transport's GetConn and GotConn; a request
// the transport retries waits again).
type connWant struct{ waiting bool }

type connWantKey struct{}

// signalLocked wakes the dials waiting at the gate; g.mu is held.
func (g *connGate) signalLocked() {
	if g.wake != nil {
		close(g.wake)
		g.wake = nil
	}
}

// dialContext is the transport's DialContext: it passes the gate, then
// dials.
func (g *connGate) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := g.enter(ctx); err != nil {
		return nil, err
	}
	c, err := g.dial(ctx, network, addr)
	if err != nil {
		g.closed()
		return nil, err
	}
	return &gatedConn{Conn: c, g: g}, nil
}

// enter waits until a new connection is needed, and counts it.
func (g *connGate) enter(ctx context.Context) error {
	want, _ := ctx.Value(connWantKey{}).(*connWant) // the dial's context keeps its request's values
	var timeout <-chan time.Time
	expired := false
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.conns >= g.inflight {
		if want != nil && !want.waiting {
			return errOrphanDial
		}
		if timeout == nil {
			t := time.NewTimer(g.wait)
			defer t.Stop()
			timeout = t.C
		}
		if g.wake == nil {
			g.wake = make(chan struct{})
		}
		wake := g.wake
		g.waiting++
		g.mu.Unlock()
		var err error
		select {
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		case <-timeout:
			expired = true
		}
		g.mu.Lock()
		g.waiting--
		if err != nil {
			return err
		}
		if expired {
			break // counted below, like any dial past the gate
		}
	}
	g.conns++
	return nil
}

// closed counts a connection closed (or a dial failed).
func (g *connGate) closed() {
	g.mu.Lock()
	g.conns--
	g.signalLocked()
	g.mu.Unlock()
}

// begin counts a request in flight and returns its context, whose
// connection the gate follows.
func (g *connGate) begin(ctx context.Context) context.Context {
	g.mu.Lock()
	g.inflight++
	g.signalLocked()
	g.mu.Unlock()
	want := &connWant{}
	return httptrace.WithClientTrace(context.WithValue(ctx, connWantKey{}, want), &httptrace.ClientTrace{
		GetConn: func(string) {
			g.mu.Lock()
			want.waiting = true
			g.mu.Unlock()
		},
		GotConn: func(httptrace.GotConnInfo) {
			g.mu.Lock()
			want.waiting = false
			g.signalLocked()
			g.mu.Unlock()
		},
	})
}

// end counts a request done.
func (g *connGate) end() {
	g.mu.Lock()
	g.inflight--
	g.mu.Unlock()
}

// gatedConn counts its close at the gate, once.
type gatedConn struct {
	net.Conn
	g    *connGate
	once sync.Once
}

func (c *gatedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.g.closed)
	return err
}

// gatedTransport counts its requests in flight at the gate: from the send
// until the answer's body is read to its end or closed.
type gatedTransport struct {
	next *http.Transport
	g    *connGate
}

func (t gatedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r.WithContext(t.g.begin(r.Context())))
	if err != nil {
		t.g.end()
		return nil, err
	}
	resp.Body = &gatedBody{ReadCloser: resp.Body, end: t.g.end}
	return resp, nil
}

// CloseIdleConnections passes on to the transport (http.Client.
// CloseIdleConnections looks for it).
func (t gatedTransport) CloseIdleConnections() { t.next.CloseIdleConnections() }

// gatedBody ends its request at the gate on its end or close, once.
type gatedBody struct {
	io.ReadCloser
	end  func()
	once sync.Once
}

func (b *gatedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.end)
	}
	return n, err
}

func (b *gatedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.end)
	return err
}

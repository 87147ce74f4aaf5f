// Package pgproxy is a TCP proxy between a test's processes and its
// PostgreSQL server that the test can cut: every connection closed and
// new ones refused for a while, a database restart as a client sees it.
// It is for tests (the team tests spawn processes through it, the store's
// tests open a store through it).
package pgproxy

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Proxy forwards connections to a PostgreSQL server until it is cut.
type Proxy struct {
	ln     net.Listener
	target func() (net.Conn, error)
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

// New starts a proxy to the server of the URL pg and returns it with the
// URL that reaches the same database through it; it stops with the test.
func New(t testing.TB, pg string) (*Proxy, string) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(pg)
	if err != nil {
		t.Fatal(err)
	}
	addr, network := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), "tcp"
	if strings.HasPrefix(cfg.Host, "/") {
		addr, network = filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port)), "unix"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: func() (net.Conn, error) { return net.Dial(network, addr) }}
	t.Cleanup(func() { ln.Close(); p.Cut(0) })
	go p.serve()
	u := url.URL{Scheme: "postgres", User: url.UserPassword(cfg.User, cfg.Password), Host: ln.Addr().String(), Path: "/" + cfg.Database, RawQuery: "sslmode=disable"}
	return p, u.String()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		s, err := p.target()
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// Down closes every connection and refuses new ones until Up.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Up takes connections again.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Cut closes every connection and refuses new ones for d.
func (p *Proxy) Cut(d time.Duration) {
	p.Down()
	time.Sleep(d)
	p.Up()
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnreachable(t *testing.T) {
	// A port nobody listens on: the dial is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, refused := pgconn.Connect(ctx, "postgres://x@"+addr+"/db?sslmode=disable&connect_timeout=2")
	if refused == nil || !Unreachable(fmt.Errorf("open: %w", refused)) {
		t.Errorf("a refused connection: %v", refused)
	}
	// A server that closes every connection at once.
	l, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, closed := pgconn.Connect(ctx, "postgres://x@"+l.Addr().String()+"/db?sslmode=disable&connect_timeout=2")
	if closed == nil || !Unreachable(closed) {
		t.Errorf("a closed connection: %v", closed)
	}
	if !Unreachable(fmt.Errorf("migrate River: %w", errors.New("conn closed"))) {
		t.Error("pgx's conn closed")
	}
	// The server answers that it cannot take a connection now.
	for _, code := range []string{"53300", "57P03", "57P01", "57P02", "08006"} {
		if err := fmt.Errorf("open: %w", &pgconn.PgError{Code: code}); !Unreachable(err) {
			t.Errorf("%v not taken for a server to wait for", err)
		}
	}
	for _, err := range []error{nil, &pgconn.PgError{Code: "28P01", Message: "password authentication failed"},
		fmt.Errorf("open: %w", &pgconn.PgError{Code: "3D000"}), errors.New("config: bad yaml"),
		fmt.Errorf("config x.yaml: %w", &fs.PathError{Op: "open", Path: "x.yaml", Err: syscall.ENOENT}),
		fmt.Errorf("open store: %w", &fs.PathError{Op: "open", Path: "f.db", Err: syscall.EACCES})} {
		if Unreachable(err) {
			t.Errorf("%v taken for an unreachable server", err)
		}
	}
}

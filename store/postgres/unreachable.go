package postgres

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"
)

// Unreachable reports whether err says the database did not answer — the
// connection was refused, reset, closed or timed out, as while a server
// restarts — or answered that it cannot take the connection now (it is
// starting up or recovering, 57P03; it is shutting down, 57P01/57P02; it
// has no connection left, 53300; a connection exception, class 08),
// rather than answering with an error of its own (a wrong password, a
// missing database, bad SQL), which waiting does not mend.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == pgerrcode.TooManyConnections || pe.Code == pgerrcode.CannotConnectNow ||
			pe.Code == pgerrcode.AdminShutdown || pe.Code == pgerrcode.CrashShutdown || pgerrcode.IsConnectionException(pe.Code)
	}
	// A network operation's error, not any error of the net.Error shape: a
	// syscall.Errno has that shape too, so a missing config file (ENOENT)
	// read as a server to wait for (a worker waited five minutes).
	var oe *net.OpError
	var ce *pgconn.ConnectError
	if errors.As(err, &oe) || errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	// pgx reports a connection closed under a query with an unexported
	// error type whose text is "conn closed".
	return strings.Contains(err.Error(), "conn closed")
}

// WhyWait says, for an Unreachable error, what the server is doing: it
// "has no connection to spare", "is starting up or recovering", "is
// shutting down", or "does not answer".
func WhyWait(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case pgerrcode.TooManyConnections:
			return "has no connection to spare"
		case pgerrcode.CannotConnectNow:
			return "is starting up or recovering"
		case pgerrcode.AdminShutdown, pgerrcode.CrashShutdown:
			return "is shutting down"
		}
	}
	return "does not answer"
}

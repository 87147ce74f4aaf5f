package cli

import (
	"slices"
	"strings"
	"testing"
)

// Who may reach the viewer: loopback needs nothing; another address needs
// --allow-remote and then takes a token (the environment's, at least 16
// characters, or a random one) and the names it may be reached by; the
// queue's UI is loopback only.
func TestViewAccess(t *testing.T) {
	if a, err := viewAccess("127.0.0.1:7411", "", false, true); err != nil || a.Token != "" || len(a.Hosts) != 0 {
		t.Fatalf("loopback: %+v %v", a, err)
	}
	if _, err := viewAccess("0.0.0.0:7411", "", false, false); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("a remote address without --allow-remote: %v", err)
	}
	if _, err := viewAccess("10.0.0.5:7411", "", true, true); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("--queue on a remote address: %v", err)
	}
	if _, err := viewAccess("nonsense", "", false, false); err == nil {
		t.Fatal("an --addr without a port")
	}
	t.Setenv("FALLACYLAB_VIEW_TOKEN", "")
	a, err := viewAccess("10.0.0.5:7411", "lab.example, viewer.example", true, false)
	if err != nil || len(a.Token) != 32 || !slices.Equal(a.Hosts, []string{"lab.example", "viewer.example", "10.0.0.5"}) {
		t.Fatalf("remote: %+v %v", a, err)
	}
	t.Setenv("FALLACYLAB_VIEW_TOKEN", "short")
	if _, err := viewAccess("10.0.0.5:7411", "", true, false); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("a short token: %v", err)
	}
	t.Setenv("FALLACYLAB_VIEW_TOKEN", "0123456789abcdef0123")
	if a, err := viewAccess("lab.example:80", "", true, false); err != nil || a.Token != "0123456789abcdef0123" || !slices.Equal(a.Hosts, []string{"lab.example"}) {
		t.Fatalf("a named host: %+v %v", a, err)
	}
}

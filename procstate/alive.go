// Package procstate tells whether a process of this host is alive: the
// run lifecycle asks it of a run's process, the engine of the process that
// holds a call's claim.
package procstate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether a process with that id exists on this host. A
// zombie — killed, not yet reaped, as a killed command's is for a while in a
// container whose first process reaps nothing — is not alive: Linux says
// so in /proc (elsewhere, the signal check alone).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// pid (comm) state …: comm may hold spaces and parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return false
		}
	}
	return true
}

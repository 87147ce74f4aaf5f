package teamtest_test

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// busy samples how busy the whole machine is (every CPU, every process:
// the workers, the queuing run, PostgreSQL and the test's server), every
// 10 ms, from Linux's /proc/stat, while a scaling benchmark's run goes on.
// A team on one machine is bound by it where the average hides it: every
// 300 ms the workers' answers come back together, and the work each asks
// for comes at once.
type busy struct {
	stop    chan struct{}
	once    sync.Once
	done    sync.WaitGroup
	samples []float64 // the share of the CPUs busy in each 10 ms, 0–1
}

// startBusy starts sampling; nil where /proc/stat cannot be read.
func startBusy() *busy {
	if _, _, ok := cpuTicks(); !ok {
		return nil
	}
	b := &busy{stop: make(chan struct{})}
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		total, idle, _ := cpuTicks()
		for {
			select {
			case <-b.stop:
				return
			case <-tick.C:
			}
			t, i, ok := cpuTicks()
			if ok && t > total {
				b.samples = append(b.samples, 1-float64(i-idle)/float64(t-total))
			}
			total, idle = t, i
		}
	}()
	return b
}

// end stops sampling (as the run ends; any goroutine, more than once).
func (b *busy) end() {
	if b != nil {
		b.once.Do(func() { close(b.stop); b.done.Wait() })
	}
}

// report stops sampling if it goes on and reports the machine's mean busy
// share and the share of the run's 10 ms samples in which it was at least
// 90 % busy (from the benchmark's goroutine).
func (b *busy) report(tb *testing.B) {
	if b == nil {
		return
	}
	b.end()
	if len(b.samples) == 0 {
		return
	}
	var sum float64
	var full int
	for _, s := range b.samples {
		sum += s
		if s >= 0.9 {
			full++
		}
	}
	tb.ReportMetric(100*sum/float64(len(b.samples)), "machine-busy-%")
	tb.ReportMetric(100*float64(full)/float64(len(b.samples)), "machine-full-%")
}

// cpuTicks is the machine's CPU time so far, in clock ticks: in all and
// idle (idle and waiting for I/O), from /proc/stat's first line.
func cpuTicks() (total, idle uint64, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range fields[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return total, idle, true
}

// cpuOf is the CPU time (user and system) processes spent, once they have
// been waited for.
func cpuOf(cmds ...*exec.Cmd) time.Duration {
	var d time.Duration
	for _, c := range cmds {
		if s := c.ProcessState; s != nil {
			d += s.UserTime() + s.SystemTime()
		}
	}
	return d
}

// postgresCPU is the CPU time PostgreSQL's server has spent so far, where
// it runs on this machine: its postmaster's own and that of the backends
// it has reaped (each connection is a process of its own, ended when the
// connection closes), read from /proc. ok is false elsewhere.
func postgresCPU(db *sql.DB) (time.Duration, bool) {
	// The backends of the processes that ended exit on their own, soon
	// after: counted once the postmaster has reaped them (a second at
	// most), or they count in the next reading.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var others int
		if err := db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`).Scan(&others); err != nil {
			return 0, false
		}
		if others <= db.Stats().OpenConnections {
			break
		}
	}
	var backend int
	if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0, false
	}
	st, ok := procStat(backend)
	if !ok || len(st) < 2 {
		return 0, false
	}
	post, ok := procStat(atoi(st[1])) // ppid: the postmaster
	if !ok || len(post) < 15 {
		return 0, false
	}
	// utime, stime, cutime, cstime: fields 14–17 of /proc/PID/stat, here
	// counted from the field after the command's closing parenthesis (3).
	var ticks int
	for _, f := range post[11:15] {
		ticks += atoi(f)
	}
	return time.Duration(ticks) * time.Second / 100, true // USER_HZ, 100 on Linux
}

// procStat is /proc/PID/stat's fields after the command's name (state,
// ppid, …).
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

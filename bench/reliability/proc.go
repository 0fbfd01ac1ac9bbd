package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// rssOf is VmRSS of pid in bytes from /proc/<pid>/status (0 when gone).
func rssOf(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// proc is a process found in /proc: its id and start time (which tells
// it from a later process that reuses the id) and its argv.
type proc struct {
	PID   int      `json:"pid"`
	PPID  int      `json:"ppid"`
	Start uint64   `json:"-"`
	Argv  []string `json:"argv"`
}

// readProc reads /proc/<pid>; ok is false when it is gone or a zombie.
func readProc(pid int) (proc, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return proc{}, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	argv := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	return proc{PID: pid, PPID: ppid, Start: start, Argv: argv}, true
}

// alive reports whether p still runs (the same process, not a reuse of
// its id).
func (p proc) alive() bool {
	q, ok := readProc(p.PID)
	return ok && q.Start == p.Start
}

// allProcs lists the live processes.
func allProcs() []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// withMarker is the live processes whose argv holds marker, and their
// descendants.
func withMarker(marker string) []proc {
	all := allProcs()
	in := map[int]bool{}
	var out []proc
	for _, p := range all {
		if bytes.Contains([]byte(strings.Join(p.Argv, "\x00")), []byte(marker)) {
			in[p.PID] = true
			out = append(out, p)
		}
	}
	for grew := true; grew; { // descendants, however deep
		grew = false
		for _, p := range all {
			if !in[p.PID] && in[p.PPID] {
				in[p.PID] = true
				out = append(out, p)
				grew = true
			}
		}
	}
	return out
}

// killProcs sends SIGKILL to the processes of ps that still run (the
// orphans a scenario found: they were started for it).
func killProcs(ps []proc) {
	for _, p := range ps {
		if p.alive() {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}

// tcpSocket is a line of /proc/net/tcp.
type tcpSocket struct {
	LocalPort, RemotePort int
	State                 string // ESTABLISHED, FIN_WAIT1, ...
	TxQueue, RxQueue      int64  // bytes not yet acknowledged / not yet read
}

var tcpStates = map[string]string{
	"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1", "05": "FIN_WAIT2",
	"06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING",
}

// tcpSockets reads the IPv4 TCP sockets of this network namespace.
func tcpSockets() []tcpSocket {
	data, err := os.ReadFile(filepath.Join("/proc", "net", "tcp"))
	if err != nil {
		return nil
	}
	var out []tcpSocket
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		lp, rp := hexPort(f[1]), hexPort(f[2])
		tx, rx, _ := strings.Cut(f[4], ":")
		txq, _ := strconv.ParseInt(tx, 16, 64)
		rxq, _ := strconv.ParseInt(rx, 16, 64)
		st := tcpStates[f[3]]
		if st == "" {
			st = f[3]
		}
		out = append(out, tcpSocket{LocalPort: lp, RemotePort: rp, State: st, TxQueue: txq, RxQueue: rxq})
	}
	return out
}

func hexPort(addr string) int {
	_, p, _ := strings.Cut(addr, ":")
	n, _ := strconv.ParseInt(p, 16, 32)
	return int(n)
}

// Command measure runs a command and prints, as one JSON line, its wall
// time, the CPU time of its whole process tree (user + system, from the
// rusage of the waited-for tree) and the CPU time of the tool itself: the
// processes whose executable is one of -self (core's binary, turbo's),
// sampled from /proc every 5 ms while they live (what a process spends in
// its last 5 ms is not seen). bench/turbo.sh uses it to put each tool's own
// cost beside the cost of the builds it runs.
//
//	measure [-self BIN[,BIN...]] -- COMMAND [ARGS...]
//
// It exits with the command's status; the command's stdout and stderr are
// its own.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	self := flag.String("self", "", "comma-separated executables whose processes are the tool itself")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [-self BIN,...] -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	var exes []string
	for _, s := range strings.Split(*self, ",") {
		if s == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(s); err == nil {
			s = r
		}
		exes = append(exes, s)
	}
	ticks := 100.0 // USER_HZ on Linux
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	done := make(chan struct{})
	seen := map[int]float64{} // pid -> CPU ticks last seen, for the tool's processes
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			sample(cmd.Process.Pid, exes, seen)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	var selfTicks float64
	for _, v := range seen {
		selfTicks += v
	}
	out, _ := json.Marshal(map[string]float64{
		"wall_ms": float64(wall.Microseconds()) / 1000,
		"cpu_ms":  float64(cpu.Microseconds()) / 1000,
		"self_ms": selfTicks / ticks * 1000,
	})
	fmt.Fprintln(os.Stderr, "measure: "+string(out))
	if f := os.Getenv("MEASURE_OUT"); f != "" {
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(fh, string(out))
			fh.Close()
		}
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		os.Exit(1)
	}
}

// sample records the CPU ticks of every process under root (root included)
// whose executable is one of exes.
func sample(root int, exes []string, seen map[int]float64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	parent := map[int]int{}
	cpu := map[int]float64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which may hold spaces.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		parent[pid] = ppid
		cpu[pid] = ut + st
	}
	under := func(pid int) bool {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				return true
			}
		}
		return false
	}
	for pid, ticks := range cpu {
		if !under(pid) {
			continue
		}
		exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
		if err != nil {
			continue
		}
		for _, x := range exes {
			if exe == x && ticks > seen[pid] {
				seen[pid] = ticks
			}
		}
	}
}

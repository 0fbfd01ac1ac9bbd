package main

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
)

// mib formats bytes as MiB (KiB below one MiB).
func mib(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// round2 rounds to two decimals (NaN to 0), for JSON.
func round2(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Round(x*100) / 100
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(s, ", ")
}

// portOf is the port of host:port.
func portOf(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

package gateway

import (
	"bytes"
	"fmt"
	"text/tabwriter"
)

// Matrix renders the exposure matrix of a table: one line per row with its
// name, method, path, grant and the listeners it is exposed on.
func Matrix(t *Table) string {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMETHOD\tPATH\tGRANT\tLOOPBACK\tSHARE\tFLAGS")
	for i := range t.Rows {
		r := &t.Rows[i]
		share := "-"
		if r.Exposed(ExposureShare) {
			share = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Method, r.Path, r.Grant, "yes", share, flags(r))
	}
	_ = tw.Flush()
	return buf.String()
}

func flags(r *Row) string {
	var out []byte
	add := func(s string) {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, s...)
	}
	if r.IsConsole() {
		add("console")
	}
	if r.Hosted {
		add("hosted")
	}
	if r.LoopbackPeer {
		add("loopback-peer")
	}
	if r.Prefix {
		add("prefix")
	}
	if r.Stream != "" {
		add("stream=" + r.Stream)
	}
	if len(out) == 0 {
		return "-"
	}
	return string(out)
}

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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Method, r.Path, r.Grant, yes(r.Exposed(ExposureLoopback)), yes(r.Exposed(ExposureShare)), flags(r))
	}
	_ = tw.Flush()
	return buf.String()
}

// yes is a matrix cell. Every row is on loopback today (a load rule), but
// the column is read from the row, not written as a constant, and stays
// because scripts that read the matrix rely on its columns.
func yes(b bool) string {
	if b {
		return "yes"
	}
	return "-"
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
	if r.AnyOrigin {
		add("any-origin")
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

package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/workspace"
)

// planHandler serves GET /api/v1/plan: the target DAG, reparsed from
// targets.yaml, with each target's live state from the server's runner
// (idle until it has been queued in this server's life).
func planHandler(d Deps) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			return apierr.BadRequest("/api/v1/plan takes no query parameters")
		}
		ws, err := workspace.Load(d.Workspace.Root())
		if err != nil {
			return apierr.Unavailable("%v", err)
		}
		g := graph.Targets(ws)
		var states map[string]string
		if d.Runner != nil {
			states = d.Runner.States()
		}
		for i := range g.Nodes {
			n := &g.Nodes[i]
			n.State = "idle"
			if st, ok := states[n.Project+":"+n.Name]; ok {
				n.State = st
			}
		}
		return writeGraph(w, g.Encode())
	}
}

// runRequest is the body of POST /api/v1/diff/run.
type runRequest struct {
	Target string `json:"target"`
}

// diffRunHandler serves POST /api/v1/diff/run: it starts a run of one
// declared target (never an argv from the request) and answers 202 with
// the run's id, under which the viewer shows it at once.
func diffRunHandler(d Deps) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodeStrict[runRequest](r.Body)
		if err != nil {
			return err
		}
		if req.Target == "" {
			return apierr.BadRequest(`target is required: {"target":"project:target"}`)
		}
		ws, err := workspace.Load(d.Workspace.Root())
		if err != nil {
			return apierr.Unavailable("%v", err)
		}
		if ws.Target(req.Target) == nil {
			var ids []string
			for _, p := range ws.Projects {
				for _, t := range p.Targets {
					ids = append(ids, t.ID())
				}
			}
			sort.Strings(ids)
			return apierr.BadRequest("%q is not a target targets.yaml declares%s; write project:target", req.Target, suggest.DidYouMean(req.Target, ids))
		}
		id, done, err := d.Runner.Start(d.RunContext, ws, req.Target)
		if err != nil {
			return err
		}
		d.count("runs_started")
		go func() {
			res := <-done
			if res == nil {
				return
			}
			for _, t := range res.Targets {
				d.count("runs_" + t.Status)
				if t.Target == req.Target && d.Activity != nil {
					d.Activity.Add("run", req.Target+" "+t.Status+" (run "+id+")", graph.TargetID(ws.Target(req.Target).Project, ws.Target(req.Target).Name))
				}
			}
		}()
		body, _ := json.Marshal(map[string]any{"run": map[string]string{"id": id, "target": req.Target, "status": runner.StateQueued}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(append(body, '\n'))
		return nil
	}
}

// decodeStrict reads one JSON object of type T: unknown fields, trailing
// data and an empty body are errors that say what is wrong.
func decodeStrict[T any](body io.Reader) (T, error) {
	var v T
	data, err := io.ReadAll(body)
	if err != nil {
		return v, err // a MaxBytesError becomes 413 in the error writer
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return v, apierr.BadRequest("the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return v, apierr.BadRequest("the body is not valid JSON at byte %d", se.Offset)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return v, apierr.BadRequest("the body is not valid JSON: it ends before the object does")
		case errors.As(err, &te):
			return v, apierr.BadRequest("field %q must be a %s", te.Field, te.Type)
		default:
			return v, apierr.BadRequest("%v", err) // unknown field "x"
		}
	}
	if dec.More() {
		return v, apierr.BadRequest("the body holds more than one JSON value; send one object")
	}
	return v, nil
}

package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/quote"
)

// planHandler serves GET /api/v1/plan: the target DAG, reparsed from
// targets.yaml, with each target's live state from the server's runner
// (idle until it has been queued in this server's life).
func planHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery != "" {
			return apierr.BadRequest("/api/v1/plan takes no query parameters")
		}
		g, err := b.Runs.Plan(b.Graph)
		if err != nil {
			return err
		}
		return writeJSONBody(w, g.Encode())
	}
}

// runRequest is the body of POST /api/v1/diff/run.
type runRequest struct {
	Target string `json:"target"`
}

// diffRunHandler serves POST /api/v1/diff/run: it starts a run of one
// target the live view's targets.yaml declares (never an argv from the
// request) and answers 202 with the run's id, under which the viewer shows
// it at once. The runner's observer keeps the books on it (counters, the
// activity trail).
func diffRunHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodeStrict[runRequest](r.Body)
		if err != nil {
			return err
		}
		if req.Target == "" {
			return apierr.BadRequest(`target is required: {"target":"project:target"}`)
		}
		id, _, err := b.Runs.Start(req.Target)
		if err != nil {
			return err
		}
		caller.Log(r.Context()).Info().Str(logx.Run, id).Msg("run started")
		body, _ := json.Marshal(map[string]any{"run": map[string]string{"id": id, "target": req.Target, "status": backend.StateQueued}})
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
			return v, apierr.BadRequest("field %s must be a %s", quote.Short(te.Field), te.Type)
		default:
			// json: unknown field "x", whose name the client chose.
			if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				name, _ := strconv.Unquote(field)
				return v, apierr.BadRequest("unknown field %s", quote.Short(name))
			}
			return v, apierr.BadRequest("the body is not a JSON object of the expected shape")
		}
	}
	if dec.More() {
		return v, apierr.BadRequest("the body holds more than one JSON value; send one object")
	}
	return v, nil
}

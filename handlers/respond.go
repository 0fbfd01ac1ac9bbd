package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// writeJSONBody writes an encoded JSON document as the whole answer; what
// it describes changes with the workspace, so no cache keeps it.
func writeJSONBody(w http.ResponseWriter, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
	return nil
}

// writeJSON encodes v and writes it as the whole answer.
func writeJSON(w http.ResponseWriter, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeJSONBody(w, body)
}

package backend

import (
	"errors"
	"fmt"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/quote"
)

// Notes is the notes area: the person's notes on graph nodes.
type Notes struct {
	store *notes.Store
}

func noteError(err error) error {
	switch {
	case errors.Is(err, notes.ErrNotFound):
		return apierr.NotFound("%v", err)
	case errors.Is(err, notes.ErrInvalid):
		return apierr.BadRequest("%v", err)
	}
	return err
}

// List is the notes of node id ("" for all).
func (n *Notes) List(nodeID string) ([]notes.Note, error) {
	list, err := n.store.List(nodeID)
	return list, noteError(err)
}

// Put writes note id (a new one when "") on node nodeID.
func (n *Notes) Put(id, nodeID, text string) (notes.Note, error) {
	note, err := n.store.Put(id, nodeID, text)
	return note, noteError(err)
}

// Delete removes note id.
func (n *Notes) Delete(id string) error { return noteError(n.store.Delete(id)) }

// Activity is the activity area: the trail of what the server did.
type Activity struct {
	store *activity.Store
}

// The bounds of a list of activities.
const (
	DefaultActivities = 100
	MaxActivities     = 1000
)

// List is the latest activities of kind ("" for all), at most limit (0
// means DefaultActivities, up to MaxActivities).
func (a *Activity) List(limit int, kind string) ([]activity.Entry, error) {
	switch {
	case limit == 0:
		limit = DefaultActivities
	case limit < 0 || limit > MaxActivities:
		return nil, apierr.BadRequest("%s", fmt.Sprintf("limit %d is out of range; allowed: 1 to %d (0 means %d)", limit, MaxActivities, DefaultActivities))
	}
	switch kind {
	case "", activity.KindRun, activity.KindJob, activity.KindGraph, activity.KindError:
	default:
		return nil, apierr.BadRequest("kind %s is not a kind; allowed: run, job, graph, error (empty for all)", quote.Short(kind))
	}
	return a.store.List(limit, kind), nil
}

package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"

	notesv1alpha1 "github.com/corehq/core/proto/gen/core/notes/v1alpha1"
	"github.com/corehq/core/proto/gen/core/notes/v1alpha1/notesv1alpha1connect"
)

var _ notesv1alpha1connect.NotesServiceHandler = (*notesService)(nil)

// notesService is core.notes.v1alpha1.NotesService: the person's notes on
// graph nodes.
type notesService struct{ b *backend.Backend }

// ListNotes lists the notes of a node (all, without one).
func (s *notesService) ListNotes(_ context.Context, req *notesv1alpha1.ListNotesRequest) (*notesv1alpha1.ListNotesResponse, error) {
	list, err := s.b.Notes.List(req.GetNodeId())
	if err != nil {
		return nil, err
	}
	out := &notesv1alpha1.ListNotesResponse{}
	for _, n := range list {
		out.Notes = append(out.Notes, noteMessage(n))
	}
	return out, nil
}

// PutNote creates or replaces a note.
func (s *notesService) PutNote(_ context.Context, req *notesv1alpha1.PutNoteRequest) (*notesv1alpha1.PutNoteResponse, error) {
	n, err := s.b.Notes.Put(req.GetId(), req.GetNodeId(), req.GetText())
	if err != nil {
		return nil, err
	}
	return &notesv1alpha1.PutNoteResponse{Note: noteMessage(n)}, nil
}

// DeleteNote deletes a note.
func (s *notesService) DeleteNote(_ context.Context, req *notesv1alpha1.DeleteNoteRequest) (*notesv1alpha1.DeleteNoteResponse, error) {
	if err := s.b.Notes.Delete(req.GetId()); err != nil {
		return nil, err
	}
	return &notesv1alpha1.DeleteNoteResponse{}, nil
}

func noteMessage(n backend.Note) *notesv1alpha1.Note {
	return &notesv1alpha1.Note{Id: n.ID, NodeId: n.NodeID, Text: n.Text, CreateTime: timestamppb.New(n.Created), UpdateTime: timestamppb.New(n.Updated)}
}

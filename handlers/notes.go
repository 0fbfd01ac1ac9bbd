package handlers

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/internal/notes"

	notesv1alpha1 "github.com/corehq/core/proto/gen/core/notes/v1alpha1"
	"github.com/corehq/core/proto/gen/core/notes/v1alpha1/notesv1alpha1connect"
)

// notesService implements core.notes.v1alpha1.NotesService.
var _ notesv1alpha1connect.NotesServiceHandler = (*notesService)(nil)

type notesService struct{ notes *notes.Store }

func (s *notesService) ListNotes(_ context.Context, req *notesv1alpha1.ListNotesRequest) (*notesv1alpha1.ListNotesResponse, error) {
	list, err := s.notes.List(req.GetNodeId())
	if err != nil {
		return nil, noteError(err)
	}
	out := &notesv1alpha1.ListNotesResponse{}
	for _, n := range list {
		out.Notes = append(out.Notes, noteMessage(n))
	}
	return out, nil
}

func (s *notesService) PutNote(_ context.Context, req *notesv1alpha1.PutNoteRequest) (*notesv1alpha1.PutNoteResponse, error) {
	n, err := s.notes.Put(req.GetId(), req.GetNodeId(), req.GetText())
	if err != nil {
		return nil, noteError(err)
	}
	return &notesv1alpha1.PutNoteResponse{Note: noteMessage(n)}, nil
}

func (s *notesService) DeleteNote(_ context.Context, req *notesv1alpha1.DeleteNoteRequest) (*notesv1alpha1.DeleteNoteResponse, error) {
	if err := s.notes.Delete(req.GetId()); err != nil {
		return nil, noteError(err)
	}
	return &notesv1alpha1.DeleteNoteResponse{}, nil
}

func noteError(err error) error {
	switch {
	case errors.Is(err, notes.ErrNotFound):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, notes.ErrInvalid):
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	return connect.NewError(connect.CodeInternal, err)
}

func noteMessage(n notes.Note) *notesv1alpha1.Note {
	return &notesv1alpha1.Note{Id: n.ID, NodeId: n.NodeID, Text: n.Text, CreateTime: timestamppb.New(n.Created), UpdateTime: timestamppb.New(n.Updated)}
}

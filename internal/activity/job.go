package activity

import (
	"context"
	"fmt"

	"github.com/corehq/core/internal/jobs"
)

// RotateJob is the rotate-activities job over s: it trims the trail to its
// cap; its size is the number of entries in the trail file.
func RotateJob(s *Store) jobs.Job {
	return jobs.Job{
		Name:        "rotate-activities",
		Description: fmt.Sprintf("Trim the activity trail to its cap (%d entries).", s.Cap()),
		Unit:        "entries",
		Run: func(context.Context) (string, error) {
			removed, err := s.Trim()
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("removed %d entries, kept %d", removed, s.Len()), nil
		},
		Size: func() int64 { return int64(s.Len()) },
	}
}

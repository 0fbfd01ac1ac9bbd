package backend

import (
	"context"
	"errors"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/insight"
)

// Insight is the insight area: the lenses over the workspace's history.
type Insight struct {
	engine *insight.Engine
}

// Report answers the lenses p asks for.
func (i *Insight) Report(ctx context.Context, p insight.Params) (*insight.Report, error) {
	rep, err := i.engine.Report(ctx, p)
	return rep, insightError(err)
}

// insightError maps the engine's typed errors to answers.
func insightError(err error) error {
	var pe *insight.ParamError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return apierr.BadRequest("%v", err)
	case errors.Is(err, insight.ErrNotRepository):
		return apierr.FailedPrecondition("%v", err)
	case errors.Is(err, gitx.ErrNotInstalled):
		return apierr.Unavailable("%v", err)
	}
	return err
}

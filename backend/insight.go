package backend

import (
	"context"
	"errors"
	"fmt"

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

// InsightView is a report for an agent: at most limit rows per list,
// fewer when the report would pass the answer's budget.
type InsightView struct {
	insight.Report
	Limit int    `json:"limit" jsonschema:"rows per list in this answer"`
	Note  string `json:"note,omitempty"`
}

// agentInsightLimit is an agent's rows per list unless it asks.
const agentInsightLimit = 10

// View answers lens ("" for all five) over window for project, at most
// limit rows per list (0: 10), within the budget.
func (i *Insight) View(ctx context.Context, lens, window, project string, limit int) (InsightView, error) {
	p := insight.Params{Window: window, Project: project, Limit: limit}
	if lens != "" {
		p.Lenses = []string{lens}
	}
	if p.Limit == 0 {
		p.Limit = agentInsightLimit
	}
	asked := p.Limit
	for {
		rep, err := i.Report(ctx, p)
		if err != nil {
			return InsightView{}, err
		}
		v := InsightView{Report: *rep, Limit: p.Limit}
		if p.Limit < asked {
			v.Note = fmt.Sprintf("%d rows per list shown, not %d (the answer's budget is %d KB): lens and project narrow the question", p.Limit, asked, AnswerBudget>>10)
		}
		if p.Limit == 1 || encodedLen(v) <= listBudget {
			return v, nil
		}
		p.Limit /= 2
	}
}

// LensNames are the insight lenses, in the order a report holds them.
var LensNames = insight.Lenses

package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"

	insightv1alpha1 "github.com/corehq/core/proto/gen/core/insight/v1alpha1"
	"github.com/corehq/core/proto/gen/core/insight/v1alpha1/insightv1alpha1connect"
)

// insightHandler serves GET /api/v1/insight: every lens, or those named by
// lens=, over window= (90d, 1y, all, Nd), for project=, limit= rows each;
// include= names the kinds of file hotspots counts although it leaves
// them out by default (lockfiles, generated, vendored, docs, or all).
func insightHandler(b *backend.Backend) gateway.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		q, err := diffParams(r, "lens", "window", "project", "limit", "include")
		if err != nil {
			return err
		}
		p := backend.InsightParams{Window: q.Get("window"), Project: q.Get("project")}
		if l := q.Get("lens"); l != "" {
			p.Lenses = strings.Split(l, ",")
		}
		if l := q.Get("include"); l != "" {
			p.Include = strings.Split(l, ",")
		}
		if s := q.Get("limit"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return apierr.BadRequest("limit must be a whole number from 1 to %d", backend.MaxInsightRows)
			}
			p.Limit = n
		}
		rep, err := b.Insight.Report(r.Context(), p)
		if err != nil {
			return err
		}
		body, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return writeJSONBody(w, body)
	}
}

// insightService implements core.insight.v1alpha1.InsightService over the
// same engine and answers as GET /api/v1/insight, one lens per RPC.
var _ insightv1alpha1connect.InsightServiceHandler = (*insightService)(nil)

type insightService struct{ b *backend.Backend }

func (s *insightService) report(ctx context.Context, q *insightv1alpha1.Query, lens string) (*backend.InsightReport, error) {
	return s.b.Insight.Report(ctx, backend.InsightParams{Lenses: []string{lens}, Window: q.GetWindow(), Project: q.GetProject(), Limit: int(q.GetLimit()), Include: q.GetInclude()})
}

func summary(r *backend.InsightReport) *insightv1alpha1.Summary {
	s := &insightv1alpha1.Summary{
		Head: r.Head, Commits: int32(r.Commits), Shallow: r.Shallow, Window: r.Window.Name,
		WindowCommits: int32(r.Window.Commits), BulkThreshold: int32(r.Bulk.Threshold), BulkCommits: int32(r.Bulk.Commits), Notes: r.Notes,
	}
	if !r.Window.Since.IsZero() {
		s.Since = timestamppb.New(r.Window.Since)
	}
	return s
}

func (s *insightService) GetHotspots(ctx context.Context, req *insightv1alpha1.GetHotspotsRequest) (*insightv1alpha1.GetHotspotsResponse, error) {
	r, err := s.report(ctx, req.GetQuery(), "hotspots")
	if err != nil {
		return nil, err
	}
	out := &insightv1alpha1.GetHotspotsResponse{Summary: summary(r)}
	for _, f := range r.Hotspots.Files {
		out.Files = append(out.Files, &insightv1alpha1.Hotspot{Path: f.Path, Project: f.Project, Changes: int32(f.Changes), Complexity: int32(f.Complexity), Score: f.Score})
	}
	for _, p := range r.Hotspots.Projects {
		out.Projects = append(out.Projects, &insightv1alpha1.Hotspot{Project: p.Project, Changes: int32(p.Changes), Complexity: int32(p.Complexity), Score: p.Score})
	}
	for _, l := range r.Hotspots.LeftOut {
		out.LeftOut = append(out.LeftOut, &insightv1alpha1.LeftOut{Kind: l.Kind, Files: int32(l.Files), Top: l.Top})
	}
	out.Included, out.Note = r.Hotspots.Included, r.Hotspots.Note
	return out, nil
}

func pairs(ps []backend.InsightPair) []*insightv1alpha1.Pair {
	out := make([]*insightv1alpha1.Pair, 0, len(ps))
	for _, p := range ps {
		out = append(out, &insightv1alpha1.Pair{A: p.A, B: p.B, Together: int32(p.Together), Support: p.Support, Confidence: p.Confidence, Hidden: p.Hidden})
	}
	return out
}

func (s *insightService) GetAffinity(ctx context.Context, req *insightv1alpha1.GetAffinityRequest) (*insightv1alpha1.GetAffinityResponse, error) {
	r, err := s.report(ctx, req.GetQuery(), "affinity")
	if err != nil {
		return nil, err
	}
	return &insightv1alpha1.GetAffinityResponse{Summary: summary(r), Files: pairs(r.Affinity.Files), Projects: pairs(r.Affinity.Projects)}, nil
}

func owners(os []backend.InsightOwner) []*insightv1alpha1.Owner {
	out := make([]*insightv1alpha1.Owner, 0, len(os))
	for _, o := range os {
		out = append(out, &insightv1alpha1.Owner{Author: o.Author, Changes: int32(o.Changes), Share: o.Share})
	}
	return out
}

func (s *insightService) GetOwnership(ctx context.Context, req *insightv1alpha1.GetOwnershipRequest) (*insightv1alpha1.GetOwnershipResponse, error) {
	r, err := s.report(ctx, req.GetQuery(), "ownership")
	if err != nil {
		return nil, err
	}
	out := &insightv1alpha1.GetOwnershipResponse{Summary: summary(r)}
	for _, f := range r.Ownership.Files {
		out.Files = append(out.Files, &insightv1alpha1.Owned{Path: f.Path, Project: f.Project, Changes: int32(f.Changes), BusFactor: int32(f.BusFactor), Owners: owners(f.Owners)})
	}
	for _, p := range r.Ownership.Projects {
		o := &insightv1alpha1.Owned{Project: p.Project, Changes: int32(p.Changes), BusFactor: int32(p.BusFactor), Owners: owners(p.Owners)}
		for _, q := range p.Quiet {
			o.Quiet = append(o.Quiet, &insightv1alpha1.Owner{Author: q.Author, Share: q.Share, Last: timestamppb.New(q.Last)})
		}
		out.Projects = append(out.Projects, o)
	}
	return out, nil
}

func (s *insightService) GetTrend(ctx context.Context, req *insightv1alpha1.GetTrendRequest) (*insightv1alpha1.GetTrendResponse, error) {
	r, err := s.report(ctx, req.GetQuery(), "trend")
	if err != nil {
		return nil, err
	}
	out := &insightv1alpha1.GetTrendResponse{Summary: summary(r), Weeks: r.Trend.Weeks}
	for _, p := range r.Trend.Projects {
		counts := make([]int32, len(p.Counts))
		for i, n := range p.Counts {
			counts[i] = int32(n)
		}
		pt := &insightv1alpha1.ProjectTrend{Project: p.Project, Counts: counts, Direction: p.Direction, Change: p.Change,
			Recent: int32(p.Recent), Baseline: p.Baseline, BaselineWeeks: int32(p.BaselineWeeks)}
		if !p.First.IsZero() {
			pt.First = timestamppb.New(p.First)
		}
		out.Projects = append(out.Projects, pt)
	}
	return out, nil
}

func (s *insightService) GetVolatility(ctx context.Context, req *insightv1alpha1.GetVolatilityRequest) (*insightv1alpha1.GetVolatilityResponse, error) {
	r, err := s.report(ctx, req.GetQuery(), "volatility")
	if err != nil {
		return nil, err
	}
	out := &insightv1alpha1.GetVolatilityResponse{Summary: summary(r), MinSample: int32(r.Volatility.MinSample), Runs: int32(r.Volatility.Runs)}
	for _, t := range r.Volatility.Targets {
		out.Targets = append(out.Targets, &insightv1alpha1.Flakiness{Target: t.Target, Runs: int32(t.Runs), Pairs: int32(t.Pairs), Flips: int32(t.Flips), Rate: t.Rate, LowerBound: t.LowerBound})
	}
	return out, nil
}

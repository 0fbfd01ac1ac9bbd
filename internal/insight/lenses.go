package insight

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/workspace"
)

// Report is the answer of GET /api/v1/insight (and, lens by lens, of the
// insight service). Lists are never nil; a lens not asked for is absent.
type Report struct {
	Head    string    `json:"head"`
	Commits int       `json:"commits"` // non-merge commits in the whole history read
	Shallow bool      `json:"shallow"`
	First   time.Time `json:"first,omitzero"`
	Last    time.Time `json:"last,omitzero"`
	Window  Window    `json:"window"`
	Bulk    Bulk      `json:"bulk"`
	Notes   []string  `json:"notes"`

	Hotspots   *Hotspots   `json:"hotspots,omitempty"`
	Affinity   *Affinity   `json:"affinity,omitempty"`
	Ownership  *Ownership  `json:"ownership,omitempty"`
	Trend      *Trend      `json:"trend,omitempty"`
	Volatility *Volatility `json:"volatility,omitempty"`
}

// Window is the span the lenses count (trend and volatility have their own).
type Window struct {
	Name    string    `json:"name"`
	Since   time.Time `json:"since,omitzero"`
	Commits int       `json:"commits"` // non-merge commits in the window
}

// Bulk says which commits count as bulk changes and how many there were.
type Bulk struct {
	Threshold int `json:"threshold"` // files
	Commits   int `json:"commits"`   // in the window
}

type Hotspots struct {
	Files    []FileHotspot    `json:"files"`
	Projects []ProjectHotspot `json:"projects"`
	// LeftOut are the kinds of file changed in the window that the lens
	// did not count (lockfiles, generated, vendored, docs), unless
	// Included names them; Note says so in a sentence, with how to
	// include them.
	LeftOut  []LeftOut `json:"left_out"`
	Included []string  `json:"included"`
	Note     string    `json:"note,omitempty"`
}

type FileHotspot struct {
	Path       string `json:"path"`
	Project    string `json:"project"`
	Changes    int    `json:"changes"`
	Complexity int    `json:"complexity"`
	Score      int64  `json:"score"`
}

type ProjectHotspot struct {
	Project    string `json:"project"`
	Changes    int    `json:"changes"`
	Complexity int    `json:"complexity"`
	Score      int64  `json:"score"`
}

type Affinity struct {
	Files    []Pair `json:"files"`
	Projects []Pair `json:"projects"`
}

// Pair is two files or projects that change in the same commits.
type Pair struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Together   int     `json:"together"`
	Support    float64 `json:"support"`    // together / commits in the window
	Confidence float64 `json:"confidence"` // together / changes of the less changed of the two
	Hidden     bool    `json:"hidden,omitempty"`
}

type Ownership struct {
	Files    []FileOwners    `json:"files"`
	Projects []ProjectOwners `json:"projects"`
}

type Owner struct {
	Author  string  `json:"author"`
	Changes int     `json:"changes"`
	Share   float64 `json:"share"`
}

type Quiet struct {
	Author string    `json:"author"`
	Share  float64   `json:"share"`
	Last   time.Time `json:"last"`
}

type FileOwners struct {
	Path      string  `json:"path"`
	Project   string  `json:"project"`
	Changes   int     `json:"changes"`
	BusFactor int     `json:"bus_factor"`
	Owners    []Owner `json:"owners"`
}

type ProjectOwners struct {
	Project   string  `json:"project"`
	Changes   int     `json:"changes"`
	BusFactor int     `json:"bus_factor"`
	Owners    []Owner `json:"owners"`
	Quiet     []Quiet `json:"quiet"`
}

type Trend struct {
	Weeks    []string       `json:"weeks"` // the Monday (UTC) each bucket starts
	Projects []ProjectTrend `json:"projects"`
}

type ProjectTrend struct {
	Project string `json:"project"`
	Counts  []int  `json:"counts"`
	// Direction compares the last TrendRecent weeks with the baseline:
	// rising, falling, steady, or new (less than MinBaselineWeeks of
	// history before them, too young to compare).
	Direction string  `json:"direction"`
	Change    float64 `json:"change"` // the last 4 weeks over 4 weeks at the baseline's rate, minus 1 (0 without a baseline rate)
	Recent    int     `json:"recent"` // commits in the last 4 weeks
	// Baseline is the project's commits per week in the weeks of the chart
	// before the last 4, counted from the week of its first commit;
	// BaselineWeeks is how many weeks that is.
	Baseline      float64   `json:"baseline"`
	BaselineWeeks int       `json:"baseline_weeks"`
	First         time.Time `json:"first,omitzero"` // the project's first commit
}

type Volatility struct {
	MinSample int               `json:"min_sample"`
	Runs      int               `json:"runs"` // runs read
	Targets   []TargetFlakiness `json:"targets"`
}

type TargetFlakiness struct {
	Target     string  `json:"target"`
	Runs       int     `json:"runs"`
	Pairs      int     `json:"pairs"` // consecutive runs with the same cache key
	Flips      int     `json:"flips"` // of those, the ones whose result differs
	Rate       float64 `json:"rate"`
	LowerBound float64 `json:"lower_bound"` // Wilson, 95%
}

// compute answers p from the kept history; e.mu is held.
func (e *Engine) compute(ctx context.Context, ws *workspace.Workspace, p Params, now time.Time) *Report {
	h := e.hist
	since, _ := windowStart(p.Window, now)
	r := &Report{Head: h.Tip, Commits: len(h.Commits), Shallow: h.Shallow, Window: Window{Name: p.Window, Since: since}, Bulk: Bulk{Threshold: e.bulk}, Notes: []string{}}
	if n := len(h.Commits); n > 0 {
		r.First, r.Last = time.Unix(h.Commits[0].Time, 0).UTC(), time.Unix(h.Commits[n-1].Time, 0).UTC()
	}
	if h.Shallow {
		r.Notes = append(r.Notes, "this clone is shallow: its oldest commits are missing, so the lenses count only the history that is here (git fetch --unshallow for all of it)")
	}
	if len(h.Commits) == 0 {
		r.Notes = append(r.Notes, "the repository has no commit yet: commit once and the lenses fill in")
	}

	project := e.projects(ws) // file number -> project name ("" when none)
	in := func(f int32) bool { return p.Project == "" || project[f] == p.Project }

	// The commits the window counts, and which of them are bulk changes.
	first := sort.Search(len(h.Commits), func(i int) bool { return h.Commits[i].Time >= since.Unix() })
	if since.IsZero() {
		first = 0
	}
	window := h.Commits[first:]
	for _, c := range window {
		if touches(c, in) {
			r.Window.Commits++
			if len(c.Files) > e.bulk {
				r.Bulk.Commits++
			}
		}
	}
	if r.Window.Commits == 0 && len(h.Commits) > 0 {
		r.Notes = append(r.Notes, "no commit falls in the window "+p.Window+": try window=all")
	}
	r.Notes = append(r.Notes, e.renameNotes(since)...)
	counted := func(c Commit) bool { return len(c.Files) <= e.bulk && touches(c, in) }

	for _, l := range p.Lenses {
		switch l {
		case "hotspots":
			r.Hotspots = e.hotspots(ws, window, counted, in, project, p.Limit, p.Include)
		case "affinity":
			r.Affinity = affinity(h, window, counted, in, project, r.Window.Commits-r.Bulk.Commits, func(a, b string) bool { return e.deps[[2]string{a, b}] }, p.Limit)
		case "ownership":
			r.Ownership = ownership(h, window, counted, in, project, now, p.Limit)
		case "trend":
			r.Trend = trend(h, ws, project, p.Project, now)
		case "volatility":
			r.Volatility = volatility(e.cacheDir, p.Project, p.Limit)
		}
	}
	_ = ctx
	return r
}

// projects maps each file number to its project's name, keeping what it
// found by path until targets.yaml changes (e.mu is held).
func (e *Engine) projects(ws *workspace.Workspace) []string {
	if e.projOf == nil || e.projWS != ws {
		e.projOf, e.projWS, e.owners = map[string]string{}, ws, graph.NewOwners(ws)
	}
	out := make([]string, len(e.hist.Paths))
	for i, path := range e.hist.Paths {
		name, ok := e.projOf[path]
		if !ok {
			if o := e.owners.Of(path); o != nil {
				name = o.Name
			}
			e.projOf[path] = name
		}
		out[i] = name
	}
	return out
}

func touches(c Commit, in func(int32) bool) bool {
	for _, f := range c.Files {
		if in(f) {
			return true
		}
	}
	return false
}

// hotspots: per file, changes in the window (bulk commits excluded) times
// its complexity now; files that no longer exist are left out, and so are
// lockfiles, generated and vendored files and docs unless include names
// their kind (the answer says how many of each it left out). A project's
// score is its commits that touch a counted file times the summed
// complexity of its counted files.
func (e *Engine) hotspots(ws *workspace.Workspace, window []Commit, counted func(Commit) bool, in func(int32) bool, project []string, limit int, include []string) *Hotspots {
	changes := make([]int, len(e.hist.Paths))
	for _, c := range window {
		if !counted(c) {
			continue
		}
		for _, f := range c.Files {
			if in(f) {
				changes[f]++
			}
		}
	}
	out := &Hotspots{Files: []FileHotspot{}, Projects: []ProjectHotspot{}, LeftOut: []LeftOut{}, Included: append([]string{}, include...)}
	owners := graph.NewOwners(ws)
	skipped := map[string][]int32{}
	keep := make([]bool, len(e.hist.Paths)) // changed, measured, and of a kind the lens counts
	byProject := map[string]*ProjectHotspot{}
	for f, n := range changes {
		if n == 0 {
			continue
		}
		path := e.hist.Paths[f]
		m := e.measured(path)
		if !m.ok {
			continue // deleted, binary or too big
		}
		if k := e.kindOf(ws, owners, path, m.gen); k != "" && !contains(include, k) {
			skipped[k] = append(skipped[k], int32(f))
			continue
		}
		keep[f] = true
		out.Files = append(out.Files, FileHotspot{Path: path, Project: project[f], Changes: n, Complexity: m.cx, Score: int64(n) * int64(m.cx)})
		if pr := project[f]; pr != "" {
			ph := byProject[pr]
			if ph == nil {
				ph = &ProjectHotspot{Project: pr}
				byProject[pr] = ph
			}
			ph.Complexity += m.cx
		}
	}
	var ps []string
	for _, c := range window {
		if !counted(c) {
			continue
		}
		ps = ps[:0]
		for _, f := range c.Files {
			if pr := project[f]; pr != "" && keep[f] && !contains(ps, pr) {
				ps = append(ps, pr)
				byProject[pr].Changes++
			}
		}
	}
	sort.Slice(out.Files, func(i, j int) bool {
		a, b := out.Files[i], out.Files[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Path < b.Path
	})
	out.Files = out.Files[:min(limit, len(out.Files))]
	for _, ph := range byProject {
		ph.Score = int64(ph.Changes) * int64(ph.Complexity)
		out.Projects = append(out.Projects, *ph)
	}
	sort.Slice(out.Projects, func(i, j int) bool {
		a, b := out.Projects[i], out.Projects[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Project < b.Project
	})
	out.Projects = out.Projects[:min(limit, len(out.Projects))]
	for _, k := range LeftOutKinds {
		fs := skipped[k]
		if len(fs) == 0 {
			continue
		}
		sort.Slice(fs, func(i, j int) bool {
			a, b := fs[i], fs[j]
			if changes[a] != changes[b] {
				return changes[a] > changes[b]
			}
			return e.hist.Paths[a] < e.hist.Paths[b]
		})
		l := LeftOut{Kind: k, Files: len(fs), Top: []string{}}
		for _, f := range fs[:min(3, len(fs))] {
			l.Top = append(l.Top, e.hist.Paths[f])
		}
		out.LeftOut = append(out.LeftOut, l)
	}
	out.Note = leftOutNote(out.LeftOut)
	return out
}

// affinity: pairs of files (commits of at most MaxPairFiles files) and of
// projects changed in the same commits, at least MinTogether times.
func affinity(h *History, window []Commit, counted func(Commit) bool, in func(int32) bool, project []string, n int, related func(a, b string) bool, limit int) *Affinity {
	fileChanges := make([]int32, len(h.Paths))
	filePairs := map[uint64]int32{} // lower file number << 32 | higher
	projChanges := map[string]int{}
	projPairs := map[[2]string]int{}
	var fs []int32
	var ps []string
	for _, c := range window {
		if !counted(c) {
			continue
		}
		fs = fs[:0]
		for _, f := range c.Files {
			if in(f) {
				fs = append(fs, f)
			}
		}
		for _, f := range fs {
			fileChanges[f]++
		}
		if len(fs) <= MaxPairFiles {
			for i := range fs {
				for j := i + 1; j < len(fs); j++ {
					a, b := fs[i], fs[j]
					if a > b {
						a, b = b, a
					}
					filePairs[uint64(a)<<32|uint64(b)]++
				}
			}
		}
		ps = projectsOf(c, project, ps[:0])
		for _, pr := range ps {
			projChanges[pr]++
		}
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				projPairs[[2]string{ps[i], ps[j]}]++
			}
		}
	}
	support := func(t int) float64 {
		if n <= 0 {
			return 0
		}
		return round(float64(t) / float64(n))
	}
	out := &Affinity{Files: []Pair{}, Projects: []Pair{}}
	for k, t := range filePairs {
		if t < MinTogether {
			continue
		}
		a, b := int32(k>>32), int32(k&0xffffffff)
		pa, pb := h.Paths[a], h.Paths[b]
		if pa > pb {
			pa, pb = pb, pa
		}
		out.Files = append(out.Files, Pair{A: pa, B: pb, Together: int(t), Support: support(int(t)),
			Confidence: round(float64(t) / float64(min(fileChanges[a], fileChanges[b])))})
	}
	for k, t := range projPairs {
		if t < MinTogether {
			continue
		}
		out.Projects = append(out.Projects, Pair{A: k[0], B: k[1], Together: t, Support: support(t),
			Confidence: round(float64(t) / float64(min(projChanges[k[0]], projChanges[k[1]]))), Hidden: !related(k[0], k[1])})
	}
	byStrength := func(ps []Pair) {
		sort.Slice(ps, func(i, j int) bool {
			a, b := ps[i], ps[j]
			if a.Together != b.Together {
				return a.Together > b.Together
			}
			if a.Confidence != b.Confidence {
				return a.Confidence > b.Confidence
			}
			return a.A+"\x00"+a.B < b.A+"\x00"+b.B
		})
	}
	byStrength(out.Files)
	byStrength(out.Projects)
	out.Files = out.Files[:min(limit, len(out.Files))]
	out.Projects = out.Projects[:min(limit, len(out.Projects))]
	return out
}

// projectsOf appends the projects a commit touches to ps, sorted, once each.
func projectsOf(c Commit, project []string, ps []string) []string {
	for _, f := range c.Files {
		if pr := project[f]; pr != "" && !contains(ps, pr) {
			ps = append(ps, pr)
		}
	}
	sort.Strings(ps)
	return ps
}

// ownership: each author's share of a file's and a project's changes in
// the window (bulk commits excluded); the bus factor is the fewest authors
// whose shares pass one half; a project's quiet owners hold at least a
// tenth of it and made no commit in the last QuietAfter.
func ownership(h *History, window []Commit, counted func(Commit) bool, in func(int32) bool, project []string, now time.Time, limit int) *Ownership {
	changes := make([]int32, len(h.Paths))
	projBy := map[string]map[int32]int{}
	lastIn := map[string]map[int32]int64{}
	var ps []string
	for _, c := range window {
		if !counted(c) {
			continue
		}
		for _, f := range c.Files {
			if in(f) {
				changes[f]++
			}
		}
		ps = ps[:0]
		for _, f := range c.Files {
			if pr := project[f]; pr != "" && in(f) && !contains(ps, pr) {
				ps = append(ps, pr)
			}
		}
		for _, pr := range ps {
			if projBy[pr] == nil {
				projBy[pr], lastIn[pr] = map[int32]int{}, map[int32]int64{}
			}
			projBy[pr][c.Author]++
			lastIn[pr][c.Author] = max(lastIn[pr][c.Author], c.Time)
		}
	}
	// The most changed files, then their authors in a second pass.
	var top []int32
	for f, n := range changes {
		if n > 0 {
			top = append(top, int32(f))
		}
	}
	sort.Slice(top, func(i, j int) bool {
		a, b := top[i], top[j]
		if changes[a] != changes[b] {
			return changes[a] > changes[b]
		}
		return h.Paths[a] < h.Paths[b]
	})
	top = top[:min(limit, len(top))]
	fileBy := make(map[int32]map[int32]int, len(top))
	for _, f := range top {
		fileBy[f] = map[int32]int{}
	}
	for _, c := range window {
		if !counted(c) {
			continue
		}
		for _, f := range c.Files {
			if by := fileBy[f]; by != nil {
				by[c.Author]++
			}
		}
	}
	out := &Ownership{Files: []FileOwners{}, Projects: []ProjectOwners{}}
	for _, f := range top {
		owners, total, bus := shares(h, fileBy[f])
		out.Files = append(out.Files, FileOwners{Path: h.Paths[f], Project: project[f], Changes: total, BusFactor: bus, Owners: owners[:min(5, len(owners))]})
	}
	for pr, by := range projBy {
		owners, total, bus := shares(h, by)
		po := ProjectOwners{Project: pr, Changes: total, BusFactor: bus, Owners: owners[:min(10, len(owners))], Quiet: []Quiet{}}
		for _, o := range owners {
			last := time.Unix(lastIn[pr][h.authors[o.Author]], 0).UTC()
			if o.Share >= 0.1 && now.Sub(last) > QuietAfter {
				po.Quiet = append(po.Quiet, Quiet{Author: o.Author, Share: o.Share, Last: last})
			}
		}
		out.Projects = append(out.Projects, po)
	}
	// Riskiest projects first: the lowest bus factor, then the most changed.
	sort.Slice(out.Projects, func(i, j int) bool {
		a, b := out.Projects[i], out.Projects[j]
		if a.BusFactor != b.BusFactor {
			return a.BusFactor < b.BusFactor
		}
		if a.Changes != b.Changes {
			return a.Changes > b.Changes
		}
		return a.Project < b.Project
	})
	out.Projects = out.Projects[:min(limit, len(out.Projects))]
	return out
}

func shares(h *History, by map[int32]int) ([]Owner, int, int) {
	total := 0
	for _, n := range by {
		total += n
	}
	owners := make([]Owner, 0, len(by))
	for a, n := range by {
		owners = append(owners, Owner{Author: h.Authors[a], Changes: n, Share: round(float64(n) / float64(total))})
	}
	sort.Slice(owners, func(i, j int) bool {
		if owners[i].Changes != owners[j].Changes {
			return owners[i].Changes > owners[j].Changes
		}
		return owners[i].Author < owners[j].Author
	})
	bus, sum := 0, 0
	for _, o := range owners {
		bus++
		sum += o.Changes
		if 2*sum > total {
			break
		}
	}
	return owners, total, bus
}

// trend: commits touching each project per week (Monday UTC), the last
// TrendWeeks weeks, bulk commits included (they are activity too). The
// last TrendRecent weeks are compared with the project's own baseline, its
// weekly rate in the chart's weeks before them since its first commit: a
// young project (or repository) has no baseline yet and is "new", rather
// than "rising" against the empty weeks before it existed. A difference is
// a direction only when it is large (a quarter more, a fifth less) and
// unlikely by chance: commits arriving at the baseline's rate (a Poisson
// count) would reach the recent count less than once in 20.
func trend(h *History, ws *workspace.Workspace, project []string, only string, now time.Time) *Trend {
	monday := now.Truncate(24 * time.Hour)
	for monday.Weekday() != time.Monday {
		monday = monday.AddDate(0, 0, -1)
	}
	start := monday.AddDate(0, 0, -7*(TrendWeeks-1))
	out := &Trend{Weeks: make([]string, TrendWeeks), Projects: []ProjectTrend{}}
	for i := range out.Weeks {
		out.Weeks[i] = start.AddDate(0, 0, 7*i).Format("2006-01-02")
	}
	counts := map[string][]int{}
	first := map[string]int64{}
	for _, p := range ws.Projects {
		if only == "" || p.Name == only {
			counts[p.Name] = make([]int, TrendWeeks)
		}
	}
	var ps []string
	for _, c := range h.Commits {
		w := int(time.Unix(c.Time, 0).UTC().Sub(start) / (7 * 24 * time.Hour))
		if c.Time < start.Unix() {
			w = -1
		}
		ps = ps[:0]
		for _, f := range c.Files {
			pr := project[f]
			if pr == "" || counts[pr] == nil || contains(ps, pr) {
				continue
			}
			ps = append(ps, pr)
			if t, ok := first[pr]; !ok || c.Time < t {
				first[pr] = c.Time
			}
			if w >= 0 && w < TrendWeeks {
				counts[pr][w]++
			}
		}
	}
	for _, p := range ws.Projects {
		cs := counts[p.Name]
		if cs == nil {
			continue
		}
		pt := ProjectTrend{Project: p.Name, Counts: cs, Direction: "steady"}
		for i := TrendWeeks - TrendRecent; i < TrendWeeks; i++ {
			pt.Recent += cs[i]
		}
		t, ok := first[p.Name]
		if ok {
			pt.First = time.Unix(t, 0).UTC()
			// The weeks of the chart before the recent ones, from the week
			// of the first commit.
			from := max(0, int(pt.First.Sub(start)/(7*24*time.Hour)))
			pt.BaselineWeeks = max(0, TrendWeeks-TrendRecent-from)
			total := 0
			for i := from; i < TrendWeeks-TrendRecent; i++ {
				total += cs[i]
			}
			if pt.BaselineWeeks > 0 {
				pt.Baseline = round(float64(total) / float64(pt.BaselineWeeks))
			}
		}
		switch {
		case !ok:
			// No commit at all: steady at nothing.
		case pt.BaselineWeeks < MinBaselineWeeks:
			pt.Direction = "new"
		default:
			pt.Direction, pt.Change = direction(pt.Recent, pt.Baseline*TrendRecent)
		}
		out.Projects = append(out.Projects, pt)
	}
	return out
}

// direction compares an observed count with the count expected at the
// baseline's rate: rising or falling when the difference is both large
// and unlikely under a Poisson count at that rate (an expectation under
// one half counts as one half, so that a few commits after a quiet spell
// are not yet a rise).
func direction(observed int, expected float64) (string, float64) {
	change := 0.0
	if expected > 0 {
		change = round(float64(observed)/expected - 1)
	}
	lambda := math.Max(expected, 0.5)
	switch {
	case float64(observed) >= 1.25*lambda && 1-poissonCDF(observed-1, lambda) < 0.05:
		return "rising", change
	case expected > 0 && float64(observed) <= 0.8*expected && poissonCDF(observed, expected) < 0.05:
		return "falling", change
	}
	return "steady", change
}

// poissonCDF is P(X <= k) for a Poisson count X of mean lambda, summed in
// log space (the terms of a large mean would underflow one by one).
func poissonCDF(k int, lambda float64) float64 {
	if k < 0 {
		return 0
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		lg, _ := math.Lgamma(float64(i + 1))
		sum += math.Exp(float64(i)*math.Log(lambda) - lambda - lg)
	}
	return math.Min(1, sum)
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// renameNotes say where the history read did not follow renames: the
// commits of the window read without rename detection (the time bound),
// and git's rename limit. e.mu is held.
func (e *Engine) renameNotes(since time.Time) []string {
	h := e.hist
	var notes []string
	var named []string
	n := 0
	for _, u := range h.Unfollowed {
		if u.Time < since.Unix() {
			continue
		}
		n++
		if len(named) < 5 {
			named = append(named, fmt.Sprintf("%.7s of %s", u.Hash, time.Unix(u.Time, 0).UTC().Format("2006-01-02")))
		}
	}
	if n > 0 {
		if n > len(named) {
			named = append(named, "...")
		}
		notes = append(notes, fmt.Sprintf("renames are not followed in %d commits of the window (%s): git's rename detection passed insight's %v bound on them (or on %d commits before them in the same read), so they were read without it, and the files they renamed start over at their new paths",
			n, strings.Join(named, ", "), e.bound, maxSlow))
	}
	if h.RenameLimited {
		notes = append(notes, fmt.Sprintf("some commit renamed more files than git's rename limit (%d) lets it compare by content: of those, only identical copies are followed as renames", RenameLimit))
	}
	return notes
}

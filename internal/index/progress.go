package index

import "sync/atomic"

// Phase is where a whole pass (Sync) is.
type Phase int32

// The phases of a pass, in order.
const (
	PhaseIdle       Phase = iota // no pass yet
	PhaseWalking                 // finding the files
	PhaseParsing                 // parsing the new and changed ones
	PhaseAssembling              // building the graph, writing the cache
	PhaseDone                    // the pass is over
)

func (p Phase) String() string {
	switch p {
	case PhaseWalking:
		return "walking"
	case PhaseParsing:
		return "parsing"
	case PhaseAssembling:
		return "assembling"
	case PhaseDone:
		return "done"
	}
	return "idle"
}

// Progress is how far the last whole pass has come: what a person waiting
// on a first index is told. It is read while the pass runs, without its
// locks.
type Progress struct {
	Phase   Phase
	Found   int64 // files the walk found so far
	ToParse int64 // files to parse (known once the walk is done)
	Parsed  int64 // of those, parsed so far
}

// progress is Progress as the pass writes it.
type progress struct {
	phase                  atomic.Int32
	found, toParse, parsed atomic.Int64
}

func (p *progress) start() {
	p.found.Store(0)
	p.toParse.Store(0)
	p.parsed.Store(0)
	p.phase.Store(int32(PhaseWalking))
}

// Progress is how far the pass under way (or the last one) has come.
func (ix *Indexer) Progress() Progress {
	return Progress{
		Phase:   Phase(ix.prog.phase.Load()),
		Found:   ix.prog.found.Load(),
		ToParse: ix.prog.toParse.Load(),
		Parsed:  ix.prog.parsed.Load(),
	}
}

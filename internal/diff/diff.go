// Package diff reads a workspace's change the way a person reviews it
// before anyone else does: the files the working tree changes (staged,
// unstaged and untracked, .gitignore respected) against HEAD or against
// the merge base with another ref, their hunks, the unified patch and a
// stamp of it all for an ETag. What the change means (each file's role,
// the blast radius, the symbols it touches, coverage, a reading order, the
// session) is package review's, over these types.
//
// It runs the git command line through package gitx, imports nothing of
// core's domain, and never writes to the working tree or the index.
package diff

// The kinds of change of a file.
const (
	KindAdded     = "added"
	KindModified  = "modified"
	KindDeleted   = "deleted"
	KindRenamed   = "renamed"    // OldPath holds the old path; content may change too
	KindMode      = "mode"       // only the mode changed (e.g. the executable bit)
	KindSubmodule = "submodule"  // a gitlink moved to another commit
	KindType      = "typechange" // a file became a symlink or the reverse
	// An unmerged path (a conflict in progress) is "modified".
)

// Change is the working tree's change against its base.
type Change struct {
	Base  Base   `json:"base"`
	Files []File `json:"files"` // sorted by Path
	// Stamp is the change's Stamp as of this read, "" when a file changed
	// while it was read (then the answer gets no ETag).
	Stamp string `json:"-"`
}

// Base is what the change is measured against.
type Base struct {
	// Ref is what was asked for: "HEAD", or the ref of ?base=.
	Ref string `json:"ref"`
	// Commit is the commit compared against: HEAD's, or the merge base of
	// Ref and HEAD; "" when the repository has no commit yet (everything
	// is added).
	Commit string `json:"commit"`
	// MergeBase is set when Commit is a merge base rather than Ref itself.
	MergeBase bool `json:"merge_base,omitempty"`
	// Branch is the current branch, "" on a detached HEAD.
	Branch string `json:"branch"`
}

// File is one changed file.
type File struct {
	Path    string `json:"path"` // slash-separated, relative to the workspace root
	OldPath string `json:"old_path,omitempty"`
	Kind    string `json:"kind"`
	OldMode string `json:"old_mode,omitempty"` // octal, as git prints it, when it changed
	NewMode string `json:"new_mode,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
	// Hash is the git blob id of the working-tree content of a regular
	// file ("" for a deleted file, a symlink or a submodule): a review
	// session's viewed mark holds for this content only.
	Hash string `json:"hash"`
	// Untracked files are new to git as well as to the base.
	Untracked bool `json:"untracked,omitempty"`
	// Added and Deleted count lines (0 for binary files).
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
	// Hunks are the changed line ranges, without context.
	Hunks []Hunk `json:"hunks"`
	// Truncated is set when the file is too large to read its hunks
	// (TruncateAt); Hunks is then empty and the patch carries a marker.
	Truncated bool `json:"truncated,omitempty"`
}

// Hunk is one changed range: OldLines lines from OldStart in the base
// became NewLines lines from NewStart in the working tree. A pure
// insertion has OldLines 0; a pure deletion NewLines 0, and then NewStart
// is the line after which the deleted lines were (git's convention).
type Hunk struct {
	OldStart int `json:"old_start"`
	OldLines int `json:"old_lines"`
	NewStart int `json:"new_start"`
	NewLines int `json:"new_lines"`
}

// TruncateAt is the size above which a file's hunks are not read.
const TruncateAt = 4 << 20

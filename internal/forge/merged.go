package forge

import (
	"context"
	"errors"
)

// MergedHeads returns the head commits of the pull requests from branch
// (OWNER:branch on the origin's repository) that were merged on the forge,
// however they were merged (merge commit, squash or rebase), most recently
// updated first. asked is false when no forge is configured (no origin on
// a supported host, or no token): the caller goes on without it. err is a
// forge that is configured and could not answer; its message says why and
// never holds the token. It implements mergewatch.Forge for check-review.
func (c *Client) MergedHeads(ctx context.Context, branch string) (heads []string, asked bool, err error) {
	t, fail := c.target(ctx, branch)
	if fail != nil {
		return nil, false, nil
	}
	gh, err := c.github(t.token)
	if err != nil {
		return nil, true, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	prs, _, err := c.listPulls(ctx, gh, t)
	if err != nil {
		_, msg := c.explain(err, "the pull requests", t)
		return nil, true, errors.New(c.scrub(Report{Message: msg}, t.token).Message)
	}
	for _, pr := range prs {
		if !pr.GetMergedAt().IsZero() && pr.GetHead().GetSHA() != "" {
			heads = append(heads, pr.GetHead().GetSHA())
		}
	}
	return heads, true, nil
}

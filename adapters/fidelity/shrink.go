package fidelity

import "context"

// MaxShrinkRuns bounds the runs one Shrink may make.
const MaxShrinkRuns = 120

// Shrink returns the shortest subsequence of steps it finds that still
// shows a disagreement with the given signature: it removes chunks of
// halving size, from the end towards the start, keeping each removal that
// still shows it (a deterministic, greedy delta debugging). Steps keep
// their IDs, so a step that refers to an object created with generateName
// by a removed step refers to none. If steps do not show the disagreement
// at all, they are returned unchanged.
func Shrink(ctx context.Context, h *Harness, steps []Step, signature string) ([]Step, error) {
	runs := 0
	shows := func(candidate []Step) (bool, error) {
		runs++
		r, err := h.Run(ctx, candidate)
		if err != nil {
			return false, err
		}
		return r.has(signature), nil
	}
	ok, err := shows(steps)
	if err != nil || !ok {
		return steps, err
	}
	cur := append([]Step(nil), steps...)
	for chunk := len(cur) / 2; chunk >= 1; chunk /= 2 {
		for end := len(cur); end-chunk >= 0 && runs < MaxShrinkRuns; {
			start := end - chunk
			cand := append(append([]Step(nil), cur[:start]...), cur[end:]...)
			if len(cand) == 0 {
				end = start
				continue
			}
			keep, err := shows(cand)
			if err != nil {
				return nil, err
			}
			if keep {
				cur = cand
				end = min(start, len(cur))
			} else {
				end = start
			}
		}
	}
	// a last pass of single steps, which the halving may have passed over
	for i := len(cur) - 1; i >= 0 && len(cur) > 1 && runs < MaxShrinkRuns; i-- {
		cand := append(append([]Step(nil), cur[:i]...), cur[i+1:]...)
		keep, err := shows(cand)
		if err != nil {
			return nil, err
		}
		if keep {
			cur = cand
		}
	}
	return cur, nil
}

package textdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Align's rows give back both texts, and a line inserted is one row, not
// every later line changed.
func TestAlign(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		a := make([]string, rnd.IntN(30))
		for i := range a {
			a[i] = fmt.Sprint(rnd.IntN(6))
		}
		b := append([]string(nil), a...)
		for range rnd.IntN(5) {
			switch k := rnd.IntN(3); {
			case k == 0 && len(b) > 0:
				i := rnd.IntN(len(b))
				b = append(b[:i], b[i+1:]...)
			case k == 1:
				i := rnd.IntN(len(b) + 1)
				b = append(b[:i], append([]string{"x"}, b[i:]...)...)
			case len(b) > 0:
				b[rnd.IntN(len(b))] = "y"
			}
		}
		var gotA, gotB []string
		for _, op := range Align(a, b) {
			if op.Eq && op.Old != op.New {
				t.Fatalf("case %d: an equal row holds %q and %q", n, op.Old, op.New)
			}
			if op.Old != "" || op.Eq {
				gotA = append(gotA, op.Old)
			}
			if op.New != "" || op.Eq {
				gotB = append(gotB, op.New)
			}
		}
		if strings.Join(gotA, ",") != strings.Join(a, ",") || strings.Join(gotB, ",") != strings.Join(b, ",") {
			t.Fatalf("case %d: rows give %v / %v, want %v / %v", n, gotA, gotB, a, b)
		}
	}
	a := []string{"l1", "l2", "l3", "l4", "l5"}
	b := []string{"l1", "new", "l2", "l3", "l4", "l5"}
	changed := 0
	for _, op := range Align(a, b) {
		if !op.Eq {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("one inserted line gave %d changed rows", changed)
	}
}

func TestLineDiff(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\n"
	got := "a\nb\nX\nc\nd\ne\nf\n"
	d := LineDiff(want, got)
	added, removed := 0, 0
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "  +++"), strings.HasPrefix(l, "  ---"):
		case strings.HasPrefix(l, "  +"):
			added++
		case strings.HasPrefix(l, "  -"):
			removed++
		}
	}
	if added != 1 || removed != 0 || !strings.Contains(d, "  +X\n") {
		t.Errorf("an inserted line gave %d added, %d removed:\n%s", added, removed, d)
	}
	if LineDiff(want, want) != "" {
		t.Error("equal texts differ")
	}
	if LineDiff("a\nb", "a\nb\n") != "" {
		t.Error("a missing last newline counted as a change")
	}
}

// BenchmarkAlign diffs two 100,000-line traces that differ in a few
// places, as a golden trace and a run's after a small rule change.
func BenchmarkAlign(b *testing.B) {
	a := make([]string, 100_000)
	for i := range a {
		a[i] = fmt.Sprintf("+%dd%02d:%02d:00  ObjectPatch/ns-%d/p%05d: Applied → NeedsUpdate by \"drift found\" reason Drifted", i/1440, i/60%24, i%60, i%97, i%10000)
	}
	c := append([]string(nil), a...)
	for _, i := range []int{10, 5000, 40000, 99990} {
		c[i] = c[i] + " (changed)"
	}
	c = append(c[:70000], append([]string{"an inserted line"}, c[70000:]...)...)
	b.ReportAllocs()
	for b.Loop() {
		Align(a, c)
	}
}

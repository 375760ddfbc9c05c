package archtest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestConformanceTable keeps spec/conformance/README.md honest: every claim
// of ../shared/claims.md has exactly one row, every row has a status of
// proven, partial or open and names its proof or its reason, and each
// section's "Counts:" line agrees with its rows.
func TestConformanceTable(t *testing.T) {
	claims, err := os.ReadFile("../../../shared/claims.md")
	if err != nil {
		t.Skipf("the claims are not beside the repository here: %v", err)
	}
	table, err := os.ReadFile("../../spec/conformance/README.md")
	if err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`(?m)^- ((?:OP|COD|AP)-\d+) \|`).FindAllStringSubmatch(string(claims), -1)
	if len(ids) < 300 {
		t.Fatalf("found only %d claims", len(ids))
	}
	rows := map[string]string{}
	counts := map[string]map[string]int{}
	for _, line := range strings.Split(string(table), "\n") {
		m := regexp.MustCompile(`^\| ((OP|COD|AP)-\d+) \|[^|]*\| (\w+) \|(.*)\|$`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, prefix, status, proof := m[1], m[2], m[3], strings.TrimSpace(m[4])
		if _, dup := rows[id]; dup {
			t.Errorf("%s has two rows", id)
		}
		rows[id] = status
		switch status {
		case "proven", "partial", "open":
		default:
			t.Errorf("%s: status %q is not proven, partial or open", id, status)
		}
		if proof == "" {
			t.Errorf("%s: no proof or reason", id)
		}
		if counts[prefix] == nil {
			counts[prefix] = map[string]int{}
		}
		counts[prefix][status]++
	}
	for _, m := range ids {
		if _, ok := rows[m[1]]; !ok {
			t.Errorf("claim %s has no row in spec/conformance/README.md", m[1])
		}
	}
	// Each section closes with "Counts: N proven, N partial ..., N open".
	sections := strings.Split(string(table), "\n## ")
	for _, sec := range sections {
		c := regexp.MustCompile(`Counts: (\d+) proven, (\d+) partial(?: \([^)]*\))?, (\d+) open`).FindStringSubmatch(strings.ReplaceAll(sec, "\n", " "))
		prefix := regexp.MustCompile(`\| ((?:OP|COD|AP))-\d+ \|`).FindStringSubmatch(sec)
		if c == nil || prefix == nil {
			continue
		}
		want := fmt.Sprintf("%d proven, %d partial, %d open", counts[prefix[1]]["proven"], counts[prefix[1]]["partial"], counts[prefix[1]]["open"])
		got := fmt.Sprintf("%s proven, %s partial, %s open", c[1], c[2], c[3])
		if got != want {
			t.Errorf("%s section says %s; its rows say %s", prefix[1], got, want)
		}
		// Where the line names the partial and open claims, they must be
		// the rows with that status.
		for _, status := range []string{"partial", "open"} {
			named := regexp.MustCompile(`\d+ ` + status + ` \(([^)]*)\)`).FindStringSubmatch(strings.ReplaceAll(sec, "\n", " "))
			if named == nil {
				continue
			}
			for _, id := range regexp.MustCompile(`(?:OP|COD|AP)-\d+`).FindAllString(named[1], -1) {
				if rows[id] != status {
					t.Errorf("the counts name %s as %s; its row says %s", id, status, rows[id])
				}
			}
		}
	}
}

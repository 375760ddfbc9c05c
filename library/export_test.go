package library

// ArbitrateAlone arbitrates self against patches without the verdicts
// remembered per list, for tests that compare the two.
func ArbitrateAlone(patches []any, self map[string]any, order []string) map[string]any {
	return NewMemory(nil).arbitrateClaims(patches, self, newClaimOrder(order))
}

package library

// ArbitrateAlone arbitrates self against patches without the verdicts
// remembered per list, for tests that compare the two.
var ArbitrateAlone = arbitrateClaims

# drift_backoff_cap is at most 24h: a tuning beyond the boundary is
# refused when the rule file is loaded. The value at the boundary's valid
# side is accepted: every other objectpatch scenario: the default, 24h.
scenario "objectpatch refuses drift_backoff_cap = 24h1s" {
  expect_error = "param \"drift_backoff_cap\" of machine objectpatch is not valid"

  rule "objectpatch" {
    params = { drift_backoff_cap = "24h1s" }
  }
}

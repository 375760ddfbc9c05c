# drift_backoff_cap is above 0s: a tuning beyond the boundary is refused
# when the rule file is loaded. The value at the boundary's valid side is
# accepted: short-delays (1s).
scenario "objectpatch refuses drift_backoff_cap = 0s" {
  expect_error = "param \"drift_backoff_cap\" of machine objectpatch is not valid"

  rule "objectpatch" {
    params = { drift_backoff_cap = "0s" }
  }
}

# revision_history_limit is at least 0 (seed 002: range 0-50): a tuning
# beyond the boundary is refused when the rule file is loaded. The value
# at the boundary's valid side is accepted: history-zero (0).
scenario "clusterobjectdeployment refuses revision_history_limit = -1" {
  expect_error = "param \"revision_history_limit\" of machine clusterobjectdeployment is not valid"

  rule "clusterobjectdeployment" {
    params = { revision_history_limit = -1 }
  }
}

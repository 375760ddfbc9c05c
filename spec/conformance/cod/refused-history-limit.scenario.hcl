# revision_history_limit is at most 50 (seed 002: range 0-50): a tuning
# beyond the boundary is refused when the rule file is loaded. The value
# at the boundary's valid side is accepted: history-max (50).
scenario "clusterobjectdeployment refuses revision_history_limit = 51" {
  expect_error = "param \"revision_history_limit\" of machine clusterobjectdeployment is not valid"

  rule "clusterobjectdeployment" {
    params = { revision_history_limit = 51 }
  }
}

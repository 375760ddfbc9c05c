# retry_interval is above 0s: a tuning beyond the boundary is refused when
# the rule file is loaded. The value at the boundary's valid side is
# accepted: short-intervals (1s).
scenario "clusterobjectdeployment refuses retry_interval = 0s" {
  expect_error = "param \"retry_interval\" of machine clusterobjectdeployment is not valid"

  rule "clusterobjectdeployment" {
    params = { retry_interval = "0s" }
  }
}

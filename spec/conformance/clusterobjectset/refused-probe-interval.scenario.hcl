# probe_interval is above 0s: a tuning beyond the boundary is refused when
# the rule file is loaded. The value at the boundary's valid side is
# accepted: short-intervals (1s).
scenario "clusterobjectset refuses probe_interval = 0s" {
  expect_error = "param \"probe_interval\" of machine clusterobjectset is not valid"

  rule "clusterobjectset" {
    params = { probe_interval = "0s" }
  }
}

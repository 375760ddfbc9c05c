# retry_interval is above 0s: a tuning beyond the boundary is refused when
# the rule file is loaded. The value at the boundary's valid side is
# accepted: short-intervals (1s).
scenario "clusterextension refuses retry_interval = 0s" {
  expect_error = "param \"retry_interval\" of machine clusterextension is not valid"

  rule "clusterextension" {
    params = { retry_interval = "0s" }
  }
}

# collision_recheck is above 0s: a tuning beyond the boundary is refused
# when the rule file is loaded. The value at the boundary's valid side is
# accepted: short-intervals (1s).
scenario "clusterobjectset refuses collision_recheck = 0s" {
  expect_error = "param \"collision_recheck\" of machine clusterobjectset is not valid"

  rule "clusterobjectset" {
    params = { collision_recheck = "0s" }
  }
}

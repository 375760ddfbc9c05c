# release_max_age is above 0s: a tuning beyond the boundary is refused
# when the rule file is loaded. The value at the boundary's valid side is
# accepted: accepted-smallest (1s).
scenario "autopatch refuses release_max_age = 0s" {
  expect_error = "param \"release_max_age\" of machine autopatch is not valid"

  rule "autopatch" {
    params = { release_max_age = "0s" }
  }
}

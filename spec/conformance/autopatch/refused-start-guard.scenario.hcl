# start_guard is at least 0s: a tuning beyond the boundary is refused when
# the rule file is loaded. The value at the boundary's valid side is
# accepted: accepted-smallest (0s).
scenario "autopatch refuses start_guard = -1s" {
  expect_error = "param \"start_guard\" of machine autopatch is not valid"

  rule "autopatch" {
    params = { start_guard = "-1s" }
  }
}

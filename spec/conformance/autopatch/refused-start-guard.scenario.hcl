# start_guard is at least 0s, as every duration is (a length of time, never
# negative): a tuning beyond the boundary is refused when the rule file is
# loaded. The value at the boundary's valid side is accepted:
# accepted-smallest (0s).
scenario "autopatch refuses start_guard = -1s" {
  expect_error = "param \"start_guard\" is not a valid duration: \"-1s\" is negative"

  rule "autopatch" {
    params = { start_guard = "-1s" }
  }
}

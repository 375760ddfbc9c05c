# create_retry_delay is above 0s: a tuning beyond the boundary is refused
# when the rule file is loaded. The value at the boundary's valid side is
# accepted: accepted-smallest (1s).
scenario "autopatch refuses create_retry_delay = 0s" {
  expect_error = "param \"create_retry_delay\" of machine autopatch is not valid"

  rule "autopatch" {
    params = { create_retry_delay = "0s" }
  }
}

# create_tries is at least 1: a tuning beyond the boundary is refused when
# the rule file is loaded. The value at the boundary's valid side is
# accepted: half-start-one-try and accepted-smallest (1).
scenario "autopatch refuses create_tries = 0" {
  expect_error = "param \"create_tries\" of machine autopatch is not valid"

  rule "autopatch" {
    params = { create_tries = 0 }
  }
}

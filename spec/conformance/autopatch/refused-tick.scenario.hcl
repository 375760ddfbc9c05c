# tick is above 0s: a tuning beyond the boundary is refused when the rule
# file is loaded. The value at the boundary's valid side is accepted:
# accepted-smallest (1s).
scenario "autopatch refuses tick = 0s" {
  expect_error = "param \"tick\" of machine autopatch is not valid"

  rule "autopatch" {
    params = { tick = "0s" }
  }
}

# min_items must be at least 1: 0 is refused when the rule file is loaded.
scenario "no items is refused" {
  expect_error = "param \"min_items\" of machine widget is not valid"

  rule "widget.hcl" {
    params = { min_items = 0 }
  }
}

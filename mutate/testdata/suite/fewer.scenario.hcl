scenario "one key is too few" {
  rules   = ["widget.hcl"]
  run_for = "10m"
  objects = ["widget.yaml", "config.yaml"]

  at "3m" {
    patch "ConfigMap/default/w" {
      merge = { data = { b = null } }
    }
  }

  expect "3m" {
    object = "Widget/default/w"
    state  = "Waiting"
    reason = "TooFew"
  }
}

scenario "ready once the map has two keys" {
  rules   = ["widget.hcl"]
  run_for = "10m"
  objects = ["widget.yaml"]

  at "5m" {
    create = ["config.yaml"]
  }

  expect "4m" {
    object = "Widget/default/w"
    fields = { "status.items" = null }
  }
  expect "5m" {
    object = "Widget/default/w"
    state  = "Ready"
    fields = { "status.items" = 2 }
  }
}

# Two machines in one engine: the Parent creates its Children, each Child
# machine steps its own Child to Ready, and every Child write wakes the
# Parent (its controller owner) without any polling.
scenario "parent waits for its children" {
  rules   = ["machines.hcl"]
  run_for = "10m"
  objects = ["parent.yaml"]

  expect "1m" {
    object = "Parent/default/app"
    state  = "Waiting"
    reason = "ChildrenCreated"
  }

  expect "1m" {
    object = "Child/default/app-web"
    state  = "Starting"
    fields = { "status.step" = 2, "metadata.labels.parent" = "app" }
  }

  expect "2m" {
    object = "Parent/default/app"
    state  = "Ready"
    reason = "AllChildrenReady"
    fields = { "status.conditions[Ready].status" = "True" }
  }

  expect "10m" {
    writes {
      verb     = "create"
      kind     = "Child"
      identity = "statecraft"
      count    = 2
    }
  }
}

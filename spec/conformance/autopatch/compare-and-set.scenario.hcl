# AP-41: the version write is a compare-and-set. Another actor writes the
# TalosCluster just after the patcher read it (a fault of outcome
# concurrent_write: the simulator writes the object before serving the
# update, so its resourceVersion moves). The update carries the
# resourceVersion the patcher read, so the server answers Conflict: the
# version is not written, no operation is created (not even the dry run's
# follow-up), the reason is VersionChanged; the next minute's decision, on
# the fresh object, writes the version and starts the operation. An update
# without the resourceVersion would overwrite the other actor's write and
# start at once.
scenario "compare-and-set: a concurrent write is not overwritten" {
  rules   = ["executor.hcl"]
  run_for = "5m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  fault {
    verb     = "update"
    kind     = "TalosCluster"
    at_calls = [1]
    outcome  = "concurrent_write"
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "VersionChanged"
  }
  expect "0s" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"                                      = "v1.10.2"
      "metadata.annotations.statecraft\\.dev/concurrent-write" = "1"
    }
  }
  expect "0s" {
    writes {
      verb    = "update"
      kind    = "TalosCluster"
      outcome = "conflict"
      count   = 1
    }
  }
  expect "0s" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 0
    }
  }
  expect "1m" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"                                      = "v1.10.5"
      "metadata.annotations.statecraft\\.dev/concurrent-write" = "1"
    }
  }
  expect "1m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "spec.type" = "talos" }
  }
}

# AP-48: create_tries 1, the smallest value its check accepts (0 is
# refused: refused-create-tries): the version written and the one create
# refused halts the patcher at once, without a second try.
scenario "half-start: one try, create_tries at its smallest valid value" {
  rules   = ["executor.hcl"]
  run_for = "6m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-off.yaml", "prod.yaml"]

  rule "autopatch" {
    params = {
      tick_jitter        = "0s" # ticks on the minute (see tick-jitter)
      settings_read_only = true
      auto_patch         = true
      create_tries       = 1
    }
  }

  # The API server fails the live creates (the first matching call is the
  # dry run).
  fault {
    verb     = "create"
    kind     = "TalosOperation"
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    at_calls = [2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  at "5m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5" } } }
    }
  }

  expect "20s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "OperationNotCreated"
    fields = {
      "status.message"                             = "the version of fleet/prod was written but fleet/prod-autopatch-talos-v1-10-5 could not be created in one try: etcdserver: request timed out"
      "status.autoPatch.haltedOperation"           = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.haltCause"                 = "OperationNotCreated"
      "status.autoPatch.starting"                  = null
      "status.autoPatch.started.fleet/prod"        = "2026-01-01T00:00:00Z"
      "status.conditions[AutoPatchHalted].status"  = "True"
      "status.conditions[AutoPatchHalted].message" = "the version of fleet/prod was written but fleet/prod-autopatch-talos-v1-10-5 could not be created in one try: etcdserver: request timed out"
    }
  }
  expect "20s" {
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 1
    }
  }
  expect "20s" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "20s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  expect "4m" {
    writes {
      verb     = "create"
      kind     = "Event"
      identity = "statecraft"
      count    = 1
    }
  }
  # Acknowledged under read-only: the halt ends and the next component
  # (Kubernetes) starts.
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.effective.autoPatch"     = true
      "status.autoPatch.lastOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6"
    }
  }
}

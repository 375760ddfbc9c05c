# AP-40 AP-41 AP-69 AP-73 AP-75 AP-79 AP-80 AP-81: who writes. The RBAC of
# the seed is staged as denials: the engine's own account may not update or
# patch TalosClusters (its ClusterRole holds neither), and ichor-auto-patch
# may do nothing but get/update TalosClusters and create TalosOperations.
# The webhook's refusals are proven by never being attempted: every
# TalosCluster write is an update by ichor-auto-patch that moves one
# version field to a newer patch of the same minor, and no request is
# refused. The version write is a compare-and-set: a concurrent edit (the
# first update answers Conflict) overwrites nothing and creates nothing;
# the next minute's decision, on the fresh object, succeeds.
scenario "identity: ichor-auto-patch writes, compare-and-set" {
  rules   = ["executor.hcl"]
  run_for = "15m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  deny {
    identity = ""
    verb     = "update"
    kind     = "TalosCluster"
  }
  deny {
    identity = ""
    verb     = "patch"
    kind     = "TalosCluster"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    verb     = "patch"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    verb     = "delete"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    verb     = "update"
    kind     = "TalosOperation"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    verb     = "create"
    kind     = "TalosCluster"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    kind     = "IchorInstallation"
  }
  deny {
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    kind     = "Event"
  }
  fault {
    verb     = "update"
    kind     = "TalosCluster"
    at_calls = [1]
    outcome  = "conflict"
    message  = "Operation cannot be fulfilled on talosclusters.ichor.maesh.dev \"prod\": the object has been modified; please apply your changes to the latest version and try again"
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "VersionChanged"
  }
  expect "0s" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "0s" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 0
    }
  }
  # The start decided at 1m writes the version in the reconcile its record
  # causes, at the same instant: looked at a moment later.
  expect "2m" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.5"
      "spec.kubernetesVersion" = "v1.32.3"
      "spec.endpoint"          = "https://prod.fleet.example:6443"
      "metadata.labels"        = null
      "metadata.annotations"   = null
      "metadata.finalizers"    = null
    }
  }
  expect "15m" {
    writes {
      kind     = "TalosCluster"
      identity = "statecraft"
      count    = 0
    }
    writes {
      verb     = "update"
      kind     = "TalosCluster"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 3
    }
    writes {
      verb     = "update"
      kind     = "TalosCluster"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      outcome  = "ok"
      count    = 2
    }
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 5
    }
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      outcome  = "forbidden"
      count    = 0
    }
    writes {
      identity = "statecraft"
      outcome  = "forbidden"
      count    = 0
    }
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 8
    }
  }
}

# A week of automatic patching on a fleet of three clusters (seed 004):
#
#   Mon 02:00  the window opens: Talos v1.10.5 starts on prod and staging;
#              edge waits (a configuration change is pending).
#   Mon 02:30  both complete; the same minute picks Kubernetes v1.32.6.
#   Mon 02:45  staging's Kubernetes upgrade fails (Paused): the patcher
#              halts everywhere; prod's upgrade runs on and completes.
#   Tue 12:00  edge's configuration is applied; halted, nothing starts.
#   Wed 06:00  the release check lists Talos v1.10.6.
#   Wed 09:00  alice acknowledges the halt (kubectl patch of
#              spec.autoPatch.acknowledgedHalt).
#   Thu 02:00  the window opens: edge and prod get Talos v1.10.6 (the
#              newest patch); staging is still held by its paused upgrade.
#   Thu 02:30  edge gets Kubernetes v1.32.6.
#   Thu 10:00  bob resumes staging's upgrade (ichor operation resume); it
#              completes at 10:30.
#   Fri 02:00  staging gets Talos v1.10.6.
#   Sat 02:00  nothing left: the fleet is on v1.10.6 / v1.32.6.
#
# The patcher ticks every minute with the shipped jitter (each tick up to
# 6s late, fixed by the installation and the tick), so the ticks drift off
# the minute and a start lands within a minute after the window opens.
scenario "a week of automatic patches on a fleet" {
  rules   = ["autopatch"]
  start   = "2026-11-02T00:00:00Z"
  run_for = "7d"
  objects = ["namespaces.yaml", "../../spec/crds/ichor.maesh.dev_talosclusters.yaml", "../../spec/crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet.yaml"]

  # The simulated executor: each operation runs for 30 minutes.
  rule "../../spec/conformance/autopatch/executor.hcl" {
    params = { duration = "30m" }
  }

  # The release check, once a day here (every six hours in Ichor).
  at "1d" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-03T00:00:00Z" } }
    }
  }
  at "2d6h" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-04T06:00:00Z", talos = ["v1.10.3", "v1.10.5", "v1.10.6", "v1.11.0"] } }
    }
  }
  at "3d" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-05T00:00:00Z" } }
    }
  }
  at "4d" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-06T00:00:00Z" } }
    }
  }
  at "5d" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-07T00:00:00Z" } }
    }
  }
  at "6d" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-11-08T00:00:00Z" } }
    }
  }

  at "2h45m" {
    patch "TalosOperation/fleet/staging-autopatch-kubernetes-v1-32-6" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "kube-apiserver on staging-cp-1 did not become healthy" } } }
    }
  }
  at "1d12h" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/edge" {
      status = { machines = [{ name = "edge-cp-1", approved = true, ready = true, configPending = false }] }
    }
  }
  at "2d9h" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/staging-autopatch-kubernetes-v1-32-6" } } }
    }
  }
  at "3d10h" {
    as = "bob"
    patch "TalosOperation/fleet/staging-autopatch-kubernetes-v1-32-6" {
      merge = { metadata = { annotations = { "ichor.maesh.dev/resume" = "true" } } }
    }
  }

  expect "1h59m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OutsideWindow"
  }
  expect "2h46m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation"          = "fleet/staging-autopatch-kubernetes-v1-32-6"
      "status.conditions[AutoPatchHalted].status" = "True"
    }
  }
  expect "2d8h" {
    object = "TalosCluster/fleet/edge"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "2d9h" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OutsideWindow"
  }
  expect "3d2h2m" {
    object = "TalosCluster/fleet/edge"
    fields = { "spec.talosVersion" = "v1.10.6" }
  }
  expect "3d2h2m" {
    object = "TalosCluster/fleet/staging"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "5d2h2m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "NoCandidate"
  }
  expect "7d" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.6"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "7d" {
    object = "TalosCluster/fleet/staging"
    fields = {
      "spec.talosVersion"      = "v1.10.6"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "7d" {
    object = "TalosCluster/fleet/edge"
    fields = {
      "spec.talosVersion"      = "v1.10.6"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "7d" {
    writes {
      kind     = "TalosCluster"
      identity = "statecraft"
      count    = 0
    }
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 8
    }
  }
}

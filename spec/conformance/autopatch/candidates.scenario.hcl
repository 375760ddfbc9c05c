# AP-17 AP-18 AP-19 AP-20 AP-21 AP-86: what may be started. Only a patch of
# the running minor, newer, final, listed by the release check and allowed
# by the compatibility table; Kubernetes only with the running Cilium
# known. Of five clusters only withcilium gets an operation (Kubernetes
# v1.32.6); the others are reported NoCandidate.
scenario "candidates: patches only, listed, compatible" {
  rules   = ["executor.hcl"]
  run_for = "15m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-candidates.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  expect "0s" {
    object = "TalosCluster/fleet/withcilium"
    fields = { "spec.kubernetesVersion" = "v1.32.6" }
  }
  expect "15m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "NoCandidate"
    fields = { "status.autoPatch.blocked" = "fleet/current NoCandidate, fleet/incompatible NoCandidate, fleet/nocilium NoCandidate, fleet/unlisted NoCandidate, fleet/withcilium NoCandidate" }
  }
  expect "15m" {
    object = "TalosCluster/fleet/current"
    fields = {
      "spec.talosVersion"      = "v1.10.5"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "15m" {
    object = "TalosCluster/fleet/incompatible"
    fields = {
      "spec.talosVersion"      = "v1.10.2"
      "spec.kubernetesVersion" = "v1.33.0"
    }
  }
  expect "15m" {
    object = "TalosCluster/fleet/nocilium"
    fields = { "spec.kubernetesVersion" = "v1.32.4" }
  }
  expect "15m" {
    object = "TalosCluster/fleet/unlisted"
    fields = { "spec.talosVersion" = "v1.10.6" }
  }
  expect "15m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 1
    }
    writes {
      verb  = "update"
      kind  = "TalosCluster"
      count = 1
    }
  }
}

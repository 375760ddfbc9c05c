# AP-22 AP-86 AP-90 AP-91 AP-92: the amendment. cilium stays an accepted
# component, yet selects no operation: a newer Cilium (v1.17.6) is listed
# and the cluster runs v1.17.4, but nothing is started, and no operation
# carrying spec.cni is ever created. Talos and Kubernetes, not selected,
# are not patched either.
scenario "cilium selects no operation" {
  rules   = ["executor.hcl"]
  run_for = "10m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-cilium.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "NoCandidate"
    fields = {
      "status.effective.autoPatchComponents" = ["cilium"]
      "status.autoPatch.blocked"             = "fleet/prod NoCandidate"
    }
  }
  expect "10m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
    writes {
      kind  = "TalosCluster"
      count = 0
    }
  }
}

# AP-42 AP-82 AP-84: the simulated executor (executor.hcl, the test double of
# Ichor's talos_upgrade.go and kubernetes_upgrade.go) reads the target of a
# Talos or Kubernetes operation from the TalosCluster's spec when the
# operation starts, not from the operation, and checks the step again.
#
#   prod: automatic v1.10.2 → spec v1.10.5, a patch: runs, completes.
#   edge: automatic, created for v1.10.5, but the spec says v1.11.0: the
#         target is the spec's, a new minor: refused, Paused.
#   qa:   automatic Kubernetes from v1.32.6, the spec says v1.32.4 (older):
#         refused, Paused.
#   lab:  a person's v1.10.2 → v1.12.0 skips a minor: refused, Paused.
#   dev:  a person's operation says v1.10.9, the spec v1.11.0: the spec's
#         one-minor step runs.
#   ghost: no such cluster: refused.
#
# And it honours the hold annotation of ADR 0043 on machines:
#
#   held: the one approved machine is held: a person's upgrade waits in
#         Pending (MachinesHeld) until the hold is lifted at 5m, then runs.
#   part: one of two approved machines held: the upgrade runs without it
#         (status.skippedMachines).
#
# It runs on the simulator and, the executor as a test helper, on a
# kube-apiserver (scenario/kubeworld TestOneScenarioTwoAdapters).
scenario "executor: target from the spec, the step checked again, holds honoured" {
  rules   = ["executor.hcl"]
  run_for = "20m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "fleet-steps.yaml", "ops-steps.yaml"]

  at "5m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/held" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }, { name = "spare-1", approved = false, ready = false }] }
    }
  }

  expect "0s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    state  = "Running"
    fields = {
      "status.targetVersion" = "v1.10.5"
      "status.failureReason" = null
    }
  }
  expect "10m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    state  = "Completed"
  }
  expect "0s" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    state  = "Paused"
    reason = "StepFailed"
    fields = {
      "spec.targetVersion"   = "v1.10.5"
      "status.targetVersion" = "v1.11.0"
      "status.failureReason" = "step refused: automatic talos v1.10.2 → v1.11.0 is not a newer patch of the same minor"
      "status.startTime"     = null
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/qa-autopatch-kubernetes-v1-32-6"
    state  = "Paused"
    reason = "StepFailed"
    fields = {
      "status.targetVersion" = "v1.32.4"
      "status.failureReason" = "step refused: automatic kubernetes v1.32.6 → v1.32.4 is not a newer patch of the same minor"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/lab-manual-talos"
    state  = "Paused"
    reason = "StepFailed"
    fields = {
      "status.targetVersion" = "v1.12.0"
      "status.failureReason" = "step refused: talos v1.10.2 → v1.12.0 goes to an older minor or skips one"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/dev-manual-talos"
    state  = "Running"
    fields = {
      "spec.targetVersion"   = "v1.10.9"
      "status.targetVersion" = "v1.11.0"
    }
  }
  expect "10m" {
    object = "TalosOperation/fleet/dev-manual-talos"
    state  = "Completed"
  }
  expect "0s" {
    object = "TalosOperation/fleet/ghost-manual-kubernetes"
    state  = "Paused"
    fields = {
      "status.failureReason" = "step refused: TalosCluster fleet/ghost not found"
    }
  }
  # The refused operations stay Paused: nothing runs them again on its own.
  expect "15m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    state  = "Paused"
    fields = {
      "status.startTime" = null
    }
  }

  expect "4m" {
    object = "TalosOperation/fleet/held-manual-talos"
    state  = "Pending"
    reason = "MachinesHeld"
    fields = {
      "status.message"       = "every approved machine of held carries ichor.maesh.dev/hold: cp-1"
      "status.startTime"     = null
      "status.targetVersion" = null
    }
  }
  expect "5m" {
    object = "TalosOperation/fleet/held-manual-talos"
    state  = "Running"
    fields = {
      "status.targetVersion"   = "v1.10.3"
      "status.skippedMachines" = null
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/part-manual-talos"
    state  = "Running"
    fields = {
      "status.targetVersion"     = "v1.10.3"
      "status.skippedMachines.0" = "worker-1"
      "status.skippedMachines.1" = null
    }
  }
}

# OP-93, OP-95, OP-96 after an engine stopped inside a reapply (issue 18's
# fault schedules: objectpatch/claims-lost, crash after write 13). The
# engine writes status.reapply "accepted" when it accepts the annotation's
# cycle, then clears the annotation and, in the status write of that
# reconcile, status.reapply. Three patches start as a stopped engine left
# them (reapply-interrupted.yaml), Pending with status.reapply "accepted":
# - lost-claim, its annotation gone: the note goes with it, and the cycle
#   ends by losing its claim to a-owner (Error, TargetAlreadyClaimed),
#   without status.reapply;
# - waiting, its annotation gone, its target missing: the note goes, the
#   cycle waits (TargetNotFound, retryCount 2 kept: no new cycle); the
#   annotation set again at 1m authorizes a cycle of its own (retryCount
#   reset to 0, the annotation cleared), where a note left behind would
#   have taken it for the cycle already accepted;
# - unclear, its annotation still set: the annotation is cleared as the
#   accepted cycle's, not accepted again (the trace: "clear reapply
#   annotation", no "reapply"), and the patch applied.
scenario "an engine stopped inside a reapply" {
  rules   = ["objectpatch"]
  run_for = "2m"
  objects = ["namespace.yaml", "deployment.yaml", "reapply-interrupted.yaml"]

  expect "0s" {
    object = "ObjectPatch/patches-demo/lost-claim"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.reapply" = null }
  }
  expect "0s" {
    object = "ObjectPatch/patches-demo/waiting"
    state  = "Pending"
    reason = "TargetNotFound"
    fields = { "status.reapply" = null, "status.retryCount" = 2 }
  }
  expect "0s" {
    object = "ObjectPatch/patches-demo/unclear"
    state  = "Applied"
    fields = {
      "status.reapply"                                           = null
      "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = null
    }
  }
  expect "0s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.team" = "a", "metadata.labels.owner" = "u" }
  }
  # The annotation is cleared by a patch of the ObjectPatch only where it is
  # still set: unclear's, the one write; lost-claim and waiting, whose
  # annotation is gone, get none (no request that could fail and report
  # ReapplyNotAccepted for a cycle already accepted).
  expect "0s" {
    writes {
      verb     = "patch"
      kind     = "ObjectPatch"
      identity = "statecraft"
      count    = 1
    }
  }

  at "1m" {
    patch "ObjectPatch/patches-demo/waiting" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/waiting"
    state  = "Pending"
    reason = "TargetNotFound"
    fields = {
      "status.reapply"                                           = null
      "status.retryCount"                                        = 0
      "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = null
    }
  }
}

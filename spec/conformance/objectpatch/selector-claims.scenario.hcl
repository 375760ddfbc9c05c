# OP-111, OP-117, OP-118, OP-119, OP-120, OP-121: ClusterObjectPatch claims are
# compared cluster-wide. The seed's two NodePool patches select different
# requirement items with item.key == "literal" (and its reversed form) and
# coexist; the same key conflicts even for a different child field; any
# other selector claims the whole array and conflicts.
scenario "selector claims on a Karpenter NodePool" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["nodepool.yaml", "nodepool-patches.yaml"]

  at "1m" {
    create = ["nodepool-later.yaml"]
  }
  expect "2m" {
    object = "ClusterObjectPatch/instance-types"
    state  = "Applied"
    reason = "Applied"
  }
  expect "2m" {
    object = "ClusterObjectPatch/capacity-type"
    state  = "Applied"
    reason = "Applied"
  }
  expect "2m" {
    object = "NodePool/general"
    fields = {
      "spec.template.spec.requirements" = [
        { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
        { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] },
        { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
      ]
    }
  }
  expect "2m" {
    object = "ClusterObjectPatch/instance-operator"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.message" = "claim /spec/template/spec/requirements[key=node.kubernetes.io/instance-type] is held by instance-types" }
  }
  expect "2m" {
    object = "ClusterObjectPatch/arch"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
}

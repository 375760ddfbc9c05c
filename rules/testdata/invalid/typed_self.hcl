machine "op" {
  resource "rightsizing.kubex.ai/v1alpha1" "ObjectPatch" {
    scope  = Namespaced
    schema = "crd:rightsizing.kubex.ai_objectpatches.yaml"
  }
  state "A" {
    initial = true
  }
  transition "typo" {
    from = [A]
    when = "self.spec.targetRef.knd == 'Deployment'" # ERROR: Invalid expression
    to   = A
  }
}

package scenario

// builtinKinds resolves kinds named in scenarios that no loaded object or
// machine declares.
var builtinKinds = map[string]string{
	"Namespace": "v1", "ConfigMap": "v1", "Secret": "v1", "Service": "v1", "ServiceAccount": "v1",
	"Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2", "PodDisruptionBudget": "policy/v1",
	"Lease": "coordination.k8s.io/v1", "Event": "events.k8s.io/v1",
}

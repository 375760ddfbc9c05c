package deploytest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// TestManifestsApplyToAPIServer applies examples/deploy (CRDs, Namespace,
// ServiceAccount, RBAC, Deployment) to a real kube-apiserver with
// server-side apply, checks the chart's objects pass a server-side dry run,
// asks the API server's authorizer what the controller's ServiceAccount may
// and may not do, and applies the folder once more with `kubectl apply
// --server-side -k` when kubectl is installed. It is skipped when the
// control-plane binaries have not been built (`make controlplane`), unless
// STATECRAFT_REQUIRE_CONTROLPLANE=1.
func TestManifestsApplyToAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cp := controlplane.StartForTest(t, controlplane.Options{KubeconfigPath: kubeconfig})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))

	apply := func(u *unstructured.Unstructured, dryRun bool) error {
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return err
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			if u.GetNamespace() == "" {
				t.Errorf("%s: namespaced, but no namespace", key(u))
			}
			ri = dyn.Resource(m.Resource).Namespace(u.GetNamespace())
		} else if u.GetNamespace() != "" {
			t.Errorf("%s: cluster-scoped, but has namespace %q", key(u), u.GetNamespace())
		}
		opts := metav1.ApplyOptions{FieldManager: "statecraft-deploytest", Force: true}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = ri.Apply(ctx, u.GetName(), u, opts)
		return err
	}

	for _, u := range examples(t) {
		if err := apply(u, false); err != nil {
			t.Fatalf("examples/deploy: apply %s: %v", key(u), err)
		}
		if u.GetKind() == "CustomResourceDefinition" {
			waitEstablished(ctx, t, dyn, u.GetName())
			mapper.Reset()
		}
	}

	// The chart's objects, with every flag at its default (every grant on),
	// as a server-side dry run over the applied examples.
	for _, u := range render(t, nil) {
		if err := apply(u, true); err != nil {
			t.Errorf("chart: dry-run apply %s: %v", key(u), err)
		}
	}

	// What the ServiceAccount may do, as RBAC decides.
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	user := "system:serviceaccount:" + namespace + ":" + sa
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	type access struct {
		verb, group, resource, subresource, ns string
		allowed                                bool
	}
	const rs = "rightsizing.kubex.ai"
	cases := []access{
		{"list", rs, "objectpatches", "", "patches-demo", true},
		{"watch", rs, "clusterobjectpatches", "", "", true},
		{"patch", rs, "objectpatches", "", "patches-demo", true}, // clearing the reapply annotation
		{"update", rs, "objectpatches", "status", "patches-demo", true},
		{"patch", rs, "clusterobjectpatches", "status", "", true},
		{"create", "", "events", "", "default", true},
		{"list", "autoscaling", "horizontalpodautoscalers", "", "patches-demo", true}, // safety-check reads
		{"update", "coordination.k8s.io", "leases", "", namespace, true},
		{"delete", rs, "objectpatches", "", "patches-demo", false},
		{"create", rs, "objectpatches", "", "patches-demo", false},
		{"update", "coordination.k8s.io", "leases", "", "default", false}, // only its own namespace
		{"patch", "apps", "deployments", "", "patches-demo", false},       // targets need their own grants
		{"get", "", "secrets", "", namespace, false},
		{"list", "policy", "poddisruptionbudgets", "", "patches-demo", false}, // the grant is get and patch only
		{"update", "karpenter.sh", "nodepools", "", "", false},
	}
	for _, g := range grants {
		ns := ""
		if g.resource == "horizontalpodautoscalers" || g.resource == "poddisruptionbudgets" {
			ns = "patches-demo"
		}
		cases = append(cases, access{"get", g.group, g.resource, "", ns, true}, access{"patch", g.group, g.resource, "", ns, true})
	}
	for _, c := range cases {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: c.verb, Group: c.group, Resource: c.resource, Subresource: c.subresource, Namespace: c.ns,
			},
		}}
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("SubjectAccessReview: %v", err)
		}
		if got.Status.Allowed != c.allowed {
			t.Errorf("%s %s %s.%s/%s in %q: allowed=%v, want %v (%s)", user, c.verb, c.resource, c.group, c.subresource, c.ns, got.Status.Allowed, c.allowed, got.Status.Reason)
		}
	}

	// Removing a grant removes the access it gave, and only that access: a
	// permission the operator holds through a role it did not make (here an
	// external ClusterRole granting patch on poddisruptionbudgets) outlives
	// the chart's grant for the same resource (OP-103).
	external := []*unstructured.Unstructured{
		{Object: map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
			"metadata": map[string]any{"name": "external-pdb-patcher"},
			"rules": []any{map[string]any{
				"apiGroups": []any{"policy"}, "resources": []any{"poddisruptionbudgets"}, "verbs": []any{"patch"},
			}},
		}},
		{Object: map[string]any{
			"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
			"metadata": map[string]any{"name": "external-pdb-patcher"},
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "external-pdb-patcher"},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": namespace}},
		}},
	}
	for _, u := range external {
		if _, err := dyn.Resource(rbacGVR(strings.ToLower(u.GetKind())+"s")).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range []string{"clusterrolebindings", "clusterroles"} {
		err := dyn.Resource(rbacGVR(kind)).Delete(ctx, "statecraft-objectpatch-poddisruptionbudgets", metav1.DeleteOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	allowed := func(verb string) (bool, error) {
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: "policy", Resource: "poddisruptionbudgets", Namespace: "patches-demo"},
		}}, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	}
	// get came only from the chart's grant: once it is denied the deletion
	// has reached the authorizer, and patch must still be allowed.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		ok, err := allowed("get")
		return err == nil && !ok, err
	}); err != nil {
		t.Errorf("get on poddisruptionbudgets still allowed after its grant was deleted: %v", err)
	}
	if ok, err := allowed("patch"); err != nil || !ok {
		t.Errorf("patch on poddisruptionbudgets, granted by an external role, was lost with the chart's grant (allowed=%v, err=%v)", ok, err)
	}

	// The README's command.
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("kubectl not installed: `kubectl apply --server-side -k` not tried")
		return
	}
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "apply", "--server-side", "-k", examplesDir)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl apply --server-side -k examples/deploy: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "clusterrole.rbac.authorization.k8s.io/statecraft-objectpatch-poddisruptionbudgets serverside-applied") {
		t.Errorf("kubectl did not recreate the deleted grant:\n%s", out)
	}
}

func rbacGVR(resource string) (gvr schema.GroupVersionResource) {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
}

func waitEstablished(ctx context.Context, t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := crds.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("CRD %s not established: %v", name, err)
	}
}

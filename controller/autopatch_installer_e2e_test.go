package controller_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/internal/controlplane"
)

const installerUser = "system:serviceaccount:statecraft-system:statecraft-installer"

// TestAutoPatchInstaller (AP-78) shows on a real kube-apiserver (RBAC) that
// the installer's bind and escalate lists of examples/autopatch/installer are
// what lets it install the autopatch policy's RBAC and nothing more: as the
// installer's ServiceAccount, `kubectl apply --server-side -f
// examples/autopatch/deploy` creates every object (among them roles granting update on talosclusters,
// impersonation and ichorinstallations/settings, which the installer does
// not hold); a ClusterRole with the same rules under another name, a Role
// granting impersonation under another name and a binding to cluster-admin
// are refused; and an installer holding the same role less its bind and
// escalate rules cannot apply the manifests.
func TestAutoPatchInstaller(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{filepath.Join(root, "spec", "crds")}, KubeconfigPath: kubeconfig})
	path := kubectlPath(t)
	ctx := context.Background()
	kubectl := func(stdin string, args ...string) {
		t.Helper()
		if out, err := runKubectl(ctx, path, kubeconfig, stdin, args...); err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	admin := kubernetes.NewForConfigOrDie(cp.Config)
	for _, ns := range []string{"ichor-system", "statecraft-system"} {
		kubectl("", "create", "namespace", ns)
	}
	kubectl("", "apply", "-f", filepath.Join(root, "examples", "autopatch", "installer"))

	// The same role without its escalation lists, bound to another account.
	full, err := admin.RbacV1().ClusterRoles().Get(ctx, "statecraft-autopatch-installer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lessRules := []rbacv1.PolicyRule{}
	for _, r := range full.Rules {
		if len(r.ResourceNames) == 0 {
			lessRules = append(lessRules, r)
		}
	}
	if len(lessRules) == len(full.Rules) {
		t.Fatal("the installer role has no named bind/escalate rules")
	}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "installer-without-lists"}, Rules: lessRules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "installer-without-lists"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "installer-without-lists"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "carol", APIGroup: "rbac.authorization.k8s.io"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deploy := filepath.Join(root, "examples", "autopatch", "deploy")
	out, err := runKubectl(ctx, path, kubeconfig, "", "--as=carol", "apply", "--server-side", "-f", deploy)
	if err == nil || !strings.Contains(out, "is attempting to grant RBAC permissions not currently held") {
		t.Fatalf("without the bind/escalate lists the manifests applied: %v\n%s", err, out)
	}
	for _, name := range []string{"ichor-auto-patch-role", "statecraft-autopatch", "ichor-settings-editor"} {
		if _, err := admin.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("without the lists, ClusterRole %s: %v, want not found", name, err)
		}
	}

	// The installer applies every object of the manifests.
	kubectl("", "--as="+installerUser, "apply", "--server-side", "-f", deploy)
	for _, name := range []string{"ichor-auto-patch-role", "statecraft-autopatch", "ichor-settings-editor"} {
		if _, err := admin.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("ClusterRole %s: %v", name, err)
		}
	}
	for _, name := range []string{"ichor-auto-patch", "statecraft-autopatch"} {
		if _, err := admin.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("ClusterRoleBinding %s: %v", name, err)
		}
	}
	if _, err := admin.RbacV1().Roles("ichor-system").Get(ctx, "statecraft-impersonate-ichor-auto-patch", metav1.GetOptions{}); err != nil {
		t.Errorf("Role statecraft-impersonate-ichor-auto-patch: %v", err)
	}
	if _, err := admin.RbacV1().RoleBindings("ichor-system").Get(ctx, "statecraft-impersonate-ichor-auto-patch", metav1.GetOptions{}); err != nil {
		t.Errorf("RoleBinding statecraft-impersonate-ichor-auto-patch: %v", err)
	}
	if _, err := admin.CoreV1().ServiceAccounts("ichor-system").Get(ctx, "ichor-auto-patch", metav1.GetOptions{}); err != nil {
		t.Errorf("ServiceAccount ichor-auto-patch: %v", err)
	}

	// Anything else that grants more than the installer holds is refused.
	asInstaller := rest.CopyConfig(cp.Config)
	asInstaller.Impersonate = rest.ImpersonationConfig{UserName: installerUser}
	inst := kubernetes.NewForConfigOrDie(asInstaller)
	autoPatchRole, err := admin.RbacV1().ClusterRoles().Get(ctx, "ichor-auto-patch-role", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "forged-auto-patch"}, Rules: autoPatchRole.Rules}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the installer creating ClusterRole forged-auto-patch with ichor-auto-patch-role's rules: %v, want Forbidden", err)
	}
	if _, err := inst.RbacV1().Roles("ichor-system").Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "forged-impersonate"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, ResourceNames: []string{"ichor-auto-patch"}, Verbs: []string{"impersonate"}}},
	}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the installer creating Role forged-impersonate: %v, want Forbidden", err)
	}
	if _, err := inst.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "forged-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "statecraft-installer", Namespace: "statecraft-system"}},
	}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the installer binding cluster-admin: %v, want Forbidden", err)
	}
}

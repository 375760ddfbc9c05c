package controlplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// StopAPIServer stops kube-apiserver alone: etcd keeps running with every
// object, and StartAPIServer starts kube-apiserver again on it, at the same
// address, with the same certificates and the same client CA, so that
// Config and every client made from it work again once it is up. It is how
// tests restart the API server under a running controller.
func (cp *ControlPlane) StopAPIServer() error {
	if cp == nil || cp.env == nil {
		return errors.New("controlplane: not running")
	}
	return cp.env.ControlPlane.GetAPIServer().Stop()
}

// StartAPIServer starts the kube-apiserver that StopAPIServer stopped and
// waits until it serves (its /readyz answers 200), or ctx ends.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	if cp == nil || cp.env == nil {
		return errors.New("controlplane: not running")
	}
	if err := cp.env.ControlPlane.GetAPIServer().Start(); err != nil {
		return fmt.Errorf("controlplane: start kube-apiserver again: %w", err)
	}
	for _, pid := range childrenIn(cp.workDir) {
		cp.janitor.process(pid)
	}
	client, err := rest.HTTPClientFor(cp.Config)
	if err != nil {
		return err
	}
	last := ""
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cp.Config.Host, "/")+"/readyz", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("controlplane: kube-apiserver not ready after a restart: %s", last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

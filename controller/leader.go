package controller

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderElection configures running only while holding a Lease.
type LeaderElection struct {
	Namespace, Name string // the Lease
	Identity        string // this replica's holder identity
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
}

// Leading reports whether this replica holds the Lease (RunElected) and is
// running.
func (c *Controller) Leading() bool { return c.leading.Load() }

// RunElected runs the controller while this replica holds the Lease. It
// returns when ctx ends or leadership is lost (the process should then exit
// and restart, as controllers conventionally do).
func (c *Controller) RunElected(ctx context.Context, le LeaderElection) error {
	if le.LeaseDuration == 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline == 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod == 0 {
		le.RetryPeriod = 2 * time.Second
	}
	kc, err := kubernetes.NewForConfig(c.client.Config())
	if err != nil {
		return err
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     kc.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	lost := false
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				c.opts.Logger.Info("leading", "lease", le.Namespace+"/"+le.Name, "identity", le.Identity)
				c.leading.Store(true)
				defer c.leading.Store(false)
				runErr = c.Run(ctx)
			},
			OnStoppedLeading: func() {
				if ctx.Err() == nil {
					lost = true
				}
				cancel()
			},
		},
	})
	if err != nil {
		return err
	}
	elector.Run(ctx)
	if lost {
		return fmt.Errorf("lost the lease %s/%s", le.Namespace, le.Name)
	}
	return runErr
}

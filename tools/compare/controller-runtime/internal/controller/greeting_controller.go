package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	demov1alpha1 "github.com/liken/greeting-operator/api/v1alpha1"
)

const (
	// ManagedBy is the label on every ConfigMap the operator makes.
	ManagedBy = "app.kubernetes.io/managed-by"
	// Operator is the value of ManagedBy, the Lease's name and the Events' reporter.
	Operator = "greeting-operator"

	fieldManager = "greeting"
	typeReady    = "Ready"
)

// GreetingReconciler reconciles a Greeting object
type GreetingReconciler struct {
	client.Client
	// APIReader reads ConfigMaps the cache does not hold (those without the label).
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  recorder.EventRecorder
}

// +kubebuilder:rbac:groups=demo.liken.dev,resources=greetings,verbs=get;list;watch
// +kubebuilder:rbac:groups=demo.liken.dev,resources=greetings/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile publishes a Greeting's message in a ConfigMap it owns and
// reports the outcome in the Greeting's status.
func (r *GreetingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var greeting demov1alpha1.Greeting
	if err := r.Get(ctx, req.NamespacedName, &greeting); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Being deleted: the garbage collector deletes the ConfigMap it owns.
	if !greeting.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	name := greeting.Name + "-greeting"
	var held corev1.ConfigMap
	err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: greeting.Namespace, Name: name}, &held)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if exists && !metav1.IsControlledBy(&held, &greeting) {
		taken := metav1.Condition{
			Status:  metav1.ConditionFalse,
			Reason:  "ConfigMapTaken",
			Message: fmt.Sprintf("ConfigMap %s exists and this Greeting does not own it", name),
		}
		return ctrl.Result{}, r.setStatus(ctx, &greeting, "", taken)
	}

	cm := corev1ac.ConfigMap(name, greeting.Namespace).
		WithLabels(map[string]string{ManagedBy: Operator}).
		WithData(map[string]string{"message": greeting.Spec.Message}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(demov1alpha1.GroupVersion.String()).
			WithKind("Greeting").
			WithName(greeting.Name).
			WithUID(greeting.UID).
			WithController(true).
			WithBlockOwnerDeletion(true))
	if err := r.Apply(ctx, cm, client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return ctrl.Result{}, err
	}
	if !exists || *cm.ResourceVersion != held.ResourceVersion {
		did := "Updated"
		if !exists {
			did = "Created"
		}
		log.Info("applied ConfigMap", "configMap", name, "result", did)
		r.Recorder.Eventf(&greeting, nil, corev1.EventTypeNormal, "ConfigMap"+did, "Apply", "%s %s", did, name)
	}

	published := metav1.Condition{
		Status:  metav1.ConditionTrue,
		Reason:  "MessagePublished",
		Message: fmt.Sprintf("ConfigMap %s holds the message", name),
	}
	return ctrl.Result{}, r.setStatus(ctx, &greeting, name, published)
}

// setStatus writes the Ready condition, the ConfigMap's name and the
// observed generation when they changed, and posts an Event when Ready
// changed its status or reason.
func (r *GreetingReconciler) setStatus(ctx context.Context, greeting *demov1alpha1.Greeting, configMap string, ready metav1.Condition) error {
	before := greeting.Status.DeepCopy()
	ready.Type = typeReady
	ready.ObservedGeneration = greeting.Generation
	meta.SetStatusCondition(&greeting.Status.Conditions, ready)
	greeting.Status.ObservedGeneration = greeting.Generation
	greeting.Status.ConfigMap = configMap
	if equality.Semantic.DeepEqual(before, &greeting.Status) {
		return nil
	}
	if err := r.Status().Update(ctx, greeting); err != nil {
		return err
	}

	old := meta.FindStatusCondition(before.Conditions, typeReady)
	if old == nil || old.Status != ready.Status || old.Reason != ready.Reason {
		eventType := corev1.EventTypeNormal
		if ready.Status == metav1.ConditionFalse {
			eventType = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(greeting, nil, eventType, ready.Reason, "Reconcile", "%s", ready.Message)
	}
	return nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *GreetingReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&demov1alpha1.Greeting{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{
			// A flat 5 s retry after an error (the default backs off exponentially).
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Second, 5*time.Second),
		}).
		Named("greeting").
		Complete(r)
}

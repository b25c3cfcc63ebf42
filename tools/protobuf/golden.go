package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// A golden case: the bytes a protobuf client sends and the JSON of the
// object the Go types decode them to.
type golden struct {
	Name  string          `json:"name"`
	Bytes string          `json:"bytes"`
	JSON  json.RawMessage `json:"json"`
}

var serializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

func encode(name string, obj runtime.Object) (golden, error) {
	var buf bytes.Buffer
	if err := serializer.Encode(obj, &buf); err != nil {
		return golden{}, fmt.Errorf("%s: %w", name, err)
	}
	decoded, _, err := serializer.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		return golden{}, fmt.Errorf("%s: %w", name, err)
	}
	text, err := json.Marshal(decoded)
	if err != nil {
		return golden{}, fmt.Errorf("%s: %w", name, err)
	}
	return golden{name, base64.StdEncoding.EncodeToString(buf.Bytes()), text}, nil
}

func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      name,
		Namespace: "default",
		Labels:    map[string]string{"app": name, "tier": "web"},
		Annotations: map[string]string{
			"note": "ünïcode ✓",
		},
		Finalizers: []string{"example.com/cleanup"},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion:         "v1",
			Kind:               "ConfigMap",
			Name:               "owner",
			UID:                "0b9c1d2e-0000-4000-8000-000000000001",
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(false),
		}},
	}
}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{
		Containers: []corev1.Container{{
			Name:    "app",
			Image:   "registry.example/app:1.2.3",
			Command: []string{"/app", "--serve"},
			Ports: []corev1.ContainerPort{
				{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			},
			Env: []corev1.EnvVar{
				{Name: "MODE", Value: "prod"},
				{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
			Resources: corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
			},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http")}},
				PeriodSeconds: 5,
			},
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr.To(true),
				RunAsUser:                ptr.To[int64](-1),
				AllowPrivilegeEscalation: ptr.To(false),
			},
		}},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr.To[int64](30),
		Volumes: []corev1.Volume{{
			Name:         "config",
			VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptr.To[int32](0o644)}},
		}},
		Tolerations:        []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](300)}},
		NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
		HostNetwork:        false,
		EnableServiceLinks: ptr.To(false),
	}
}

func cases() []runtime.Object {
	stamp := metav1.NewTime(time.Date(2026, 12, 5, 16, 0, 1, 500, time.UTC))
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta("web-0"),
		Spec:       podSpec(),
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: stamp}}
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta("web"),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"app": "web"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "api"}},
				},
			},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "web"}}, Spec: podSpec()},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr.To(intstr.FromInt32(0)),
					MaxSurge:       ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit: ptr.To[int32](0),
		},
	}
	configMap := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", GenerateName: "cfg-", CreationTimestamp: stamp},
		Data:       map[string]string{"a.yaml": "x: 1\n", "empty": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 0xff}, "none": {}},
		Immutable:  ptr.To(false),
	}
	service := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9091)},
			},
			SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}},
		},
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "jobs"},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](4),
			Parallelism:             ptr.To[int32](0),
			Suspend:                 ptr.To(true),
			ActiveDeadlineSeconds:   ptr.To[int64](1 << 40),
			TTLSecondsAfterFinished: ptr.To[int32](60),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "run", Image: "busybox", Args: []string{"echo", "hi"}}},
			}},
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:      batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1, 2, 127}},
			}}},
		},
		Status: batchv1.JobStatus{StartTime: &stamp, Active: 1},
	}
	micro := metav1.NewMicroTime(time.Date(2026, 12, 5, 16, 0, 1, 123456789, time.UTC))
	lease := &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: "leader", Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("me"),
			LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime:          &micro,
			RenewTime:            &micro,
			LeaseTransitions:     ptr.To[int32](0),
		},
	}
	deleteOptions := &metav1.DeleteOptions{
		TypeMeta:          metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"},
		PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
		Preconditions:     &metav1.Preconditions{UID: ptr.To[types.UID]("0b9c1d2e-0000-4000-8000-000000000001")},
		DryRun:            []string{"All"},
	}
	return []runtime.Object{pod, deployment, configMap, service, job, lease, deleteOptions}
}

func writeGolden(out string) error {
	var cases_ []golden
	for _, obj := range cases() {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		g, err := encode(kind, obj)
		if err != nil {
			return err
		}
		cases_ = append(cases_, g)
	}
	text, err := json.MarshalIndent(cases_, "", "  ")
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("// Generated by tools/protobuf (go run . golden): do not edit.\n")
	b.WriteString("// Protobuf bodies written by k8s.io/api v0.37.2's generated Marshal, and\n")
	b.WriteString("// the JSON of the objects the Go types decode them to.\n\n")
	b.WriteString("/** A body and the JSON the Go types make of it. */\n")
	b.WriteString("export interface Golden {\n  name: string;\n  bytes: string;\n  json: unknown;\n}\n\n")
	b.WriteString("/** The golden cases. */\n")
	b.WriteString("export const GOLDEN: readonly Golden[] = ")
	b.Write(text)
	b.WriteString(";\n")
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

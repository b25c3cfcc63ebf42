package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GreetingSpec defines the desired state of Greeting.
type GreetingSpec struct {
	// Message is the text the operator publishes in a ConfigMap.
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Message string `json:"message"`
}

// GreetingStatus defines the observed state of Greeting.
type GreetingStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// ConfigMap names the ConfigMap that holds the message.
	// +optional
	ConfigMap string `json:"configMap,omitempty"`

	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=greet
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.spec.message`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="ConfigMap",type=string,JSONPath=`.status.configMap`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Greeting is the Schema for the greetings API.
type Greeting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GreetingSpec `json:"spec"`

	// +optional
	Status GreetingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// GreetingList contains a list of Greeting.
type GreetingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Greeting `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Greeting{}, &GreetingList{})
}

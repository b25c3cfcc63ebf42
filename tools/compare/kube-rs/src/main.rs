use std::{collections::BTreeMap, sync::Arc, time::Duration};

use futures::StreamExt;
use k8s_openapi::{
    api::core::v1::ConfigMap,
    apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference, Time},
    jiff::Timestamp,
};
use kube::{
    Client, CustomResource, CustomResourceExt, Resource, ResourceExt,
    api::{Api, ObjectMeta, Patch, PatchParams},
    runtime::{
        controller::{Action, Controller},
        events::{Event, EventType, Recorder, Reporter},
        watcher,
    },
};
use kube_lease_manager::LeaseManagerBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use tracing::*;

const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// The value of `MANAGED_BY`, the Lease's name and the Events' reporter.
const OPERATOR: &str = "greeting-operator";
const FIELD_MANAGER: &str = "greeting";

#[derive(Debug, Error)]
enum Error {
    #[error("Kubernetes request failed: {0}")]
    Kube(#[from] kube::Error),
    #[error("MissingObjectKey: {0}")]
    MissingObjectKey(&'static str),
}

/// A message the operator publishes in a ConfigMap.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[allow(clippy::duplicated_attributes)] // clippy misreads the repeated `type_` keys
#[kube(
    group = "demo.liken.dev",
    version = "v1alpha1",
    kind = "Greeting",
    namespaced,
    status = "GreetingStatus",
    shortname = "greet",
    printcolumn(name = "Message", type_ = "string", json_path = ".spec.message"),
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="Ready")].status"#
    ),
    printcolumn(name = "ConfigMap", type_ = "string", json_path = ".status.configMap"),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
pub struct GreetingSpec {
    #[schemars(length(max = 4096))]
    pub message: String,
}

#[derive(Deserialize, Serialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GreetingStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_map: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
}

// Data we want access to in error/reconcile calls
struct Context {
    client: Client,
    recorder: Recorder,
}

impl Context {
    /// Posts an Event about the Greeting; a failed post is only logged.
    async fn publish(&self, greeting: &Greeting, type_: EventType, reason: String, note: String) {
        let event = Event {
            type_,
            reason,
            note: Some(note),
            action: "Reconcile".into(),
            secondary: None,
        };
        if let Err(error) = self.recorder.publish(&event, &greeting.object_ref(&())).await {
            warn!(%error, "failed to publish an Event");
        }
    }
}

/// Controller triggers this whenever a Greeting or its ConfigMap changed
async fn reconcile(greeting: Arc<Greeting>, ctx: Arc<Context>) -> Result<Action, Error> {
    // Being deleted: the garbage collector deletes the ConfigMap it owns.
    if greeting.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let ns = greeting
        .namespace()
        .ok_or(Error::MissingObjectKey(".metadata.namespace"))?;
    let name = format!("{}-greeting", greeting.name_any());
    let configmaps = Api::<ConfigMap>::namespaced(ctx.client.clone(), &ns);

    let held = configmaps.get_opt(&name).await?;
    if let Some(held) = &held {
        let controller = held
            .owner_references()
            .iter()
            .find(|r| r.controller == Some(true));
        if controller.map(|r| &r.uid) != greeting.metadata.uid.as_ref() {
            let message = format!("ConfigMap {name} exists and this Greeting does not own it");
            set_status(&greeting, &ctx, None, "False", "ConfigMapTaken", message).await?;
            return Ok(Action::await_change());
        }
    }

    let owner = OwnerReference {
        block_owner_deletion: Some(true),
        ..greeting.controller_owner_ref(&()).unwrap()
    };
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            labels: Some(BTreeMap::from([(MANAGED_BY.into(), OPERATOR.into())])),
            owner_references: Some(vec![owner]),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([(
            "message".into(),
            greeting.spec.message.clone(),
        )])),
        ..Default::default()
    };
    let made = configmaps
        .patch(
            &name,
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&cm),
        )
        .await?;
    if made.resource_version() != held.as_ref().and_then(|h| h.resource_version()) {
        let did = if held.is_some() { "Updated" } else { "Created" };
        let (reason, note) = (format!("ConfigMap{did}"), format!("{did} {name}"));
        ctx.publish(&greeting, EventType::Normal, reason, note).await;
    }

    let message = format!("ConfigMap {name} holds the message");
    set_status(&greeting, &ctx, Some(name), "True", "MessagePublished", message).await?;
    Ok(Action::await_change())
}

/// Applies the Ready condition, the ConfigMap's name and the observed
/// generation when they changed, and posts an Event when Ready changed its
/// status or reason.
async fn set_status(
    greeting: &Greeting,
    ctx: &Context,
    config_map: Option<String>,
    status: &str,
    reason: &str,
    message: String,
) -> Result<(), Error> {
    let held = greeting.status.clone().unwrap_or_default();
    let old = held.conditions.iter().find(|c| c.type_ == "Ready");
    let ready = Condition {
        type_: "Ready".into(),
        status: status.into(),
        reason: reason.into(),
        message,
        observed_generation: greeting.metadata.generation,
        // The transition time moves only when the status does.
        last_transition_time: match old {
            Some(c) if c.status == status => c.last_transition_time.clone(),
            _ => Time(Timestamp::now()),
        },
    };
    let generation = greeting.metadata.generation;
    if old == Some(&ready) && held.observed_generation == generation && held.config_map == config_map {
        return Ok(());
    }

    // Server-side apply: the list-map merges by type, so other writers'
    // conditions stay, and a field this manager stops sending is removed.
    let patch = serde_json::json!({
        "apiVersion": Greeting::api_version(&()),
        "kind": Greeting::kind(&()),
        "status": GreetingStatus {
            observed_generation: generation,
            config_map,
            conditions: vec![ready.clone()],
        },
    });
    let greetings = Api::<Greeting>::namespaced(ctx.client.clone(), &greeting.namespace().unwrap());
    greetings
        .patch_status(
            &greeting.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await?;

    if old.is_none_or(|c| c.status != ready.status || c.reason != ready.reason) {
        let type_ = if ready.status == "False" {
            EventType::Warning
        } else {
            EventType::Normal
        };
        ctx.publish(greeting, type_, ready.reason, ready.message).await;
    }
    Ok(())
}

/// The controller triggers this on reconcile errors
fn error_policy(_greeting: Arc<Greeting>, error: &Error, _ctx: Arc<Context>) -> Action {
    warn!(%error, "reconcile failed");
    Action::requeue(Duration::from_secs(5))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // `greeting-operator crd` prints the CRD that the types derive.
    if std::env::args().nth(1).as_deref() == Some("crd") {
        println!("{}", serde_json::to_string_pretty(&Greeting::crd())?);
        return Ok(());
    }
    tracing_subscriber::fmt::init();
    let client = Client::try_default().await?;
    let pod = std::env::var("POD_NAME").or_else(|_| std::env::var("HOSTNAME"))?;

    // Leader election is not in kube-runtime: kube-lease-manager holds the
    // Lease in the operator's own namespace (the service account's).
    let lease = LeaseManagerBuilder::new(client.clone(), OPERATOR)
        .with_namespace(client.default_namespace())
        .with_identity(&pod)
        .build()
        .await?;
    let (mut leading, lease_task) = lease.watch().await;
    info!("waiting for the Lease");
    leading.wait_for(|leader| *leader).await?;
    let mut lost = leading.clone();
    let lost = async move {
        let _ = lost.wait_for(|leader| !*leader).await;
    };

    // No metrics or probe endpoints: kube-runtime leaves serving them to the user.
    let greetings = Api::<Greeting>::all(client.clone());
    let configmaps = Api::<ConfigMap>::all(client.clone());
    let recorder = Recorder::new(
        client.clone(),
        Reporter {
            controller: OPERATOR.into(),
            instance: Some(pod),
        },
    );

    info!("starting greeting controller");
    Controller::new(greetings, watcher::Config::default())
        .owns(
            configmaps,
            watcher::Config::default().labels(&format!("{MANAGED_BY}={OPERATOR}")),
        )
        .shutdown_on_signal()
        .graceful_shutdown_on(lost)
        .run(reconcile, error_policy, Arc::new(Context { client, recorder }))
        .for_each(|res| async move {
            match res {
                Ok(o) => info!("reconciled {:?}", o),
                Err(e) => warn!("reconcile failed: {}", e),
            }
        })
        .await;

    let still_leading = *leading.borrow();
    // Dropping the channel releases the Lease.
    drop(leading);
    lease_task.await??;
    if !still_leading {
        anyhow::bail!("lost the Lease");
    }
    info!("controller terminated");
    Ok(())
}

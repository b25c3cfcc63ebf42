//! A kube-rs `Controller` on ConfigMaps (all namespaces) against the latency
//! bench's server (bench/latency/_server.ts): it syncs, reconciles every
//! object once, then asks for one phase of changes after another and times
//! each reconcile's start against the stamp the server wrote into the
//! object. Prints one JSON line of the shape bench/latency/_phase.ts names.
use std::convert::Infallible;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use futures::channel::oneshot;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::controller::{Action, Config as ControllerConfig, Controller};
use kube::runtime::watcher;
use kube::{Api, Client, Config};

/// The annotation the server stamps each change with: `"<phase> <ms>"`.
const SENT: &str = "bench.liken.dev/sent";

fn arg(name: &str) -> Option<String> {
    let flag = format!("--{name}=");
    std::env::args().find_map(|a| a.strip_prefix(&flag).map(str::to_owned))
}

/// The server's clock: ms since the epoch, with a fraction.
fn wall_clock() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

/// What the reconciles of the current phase saw.
#[derive(Default)]
struct Rec {
    objects: usize,
    initial: usize,
    warm: Option<oneshot::Sender<()>>,
    phase: i64,
    events: usize,
    latencies: Vec<f64>,
    stamps: Vec<f64>,
    last_start: f64,
    done: Option<oneshot::Sender<()>>,
    timing: bool,
    late: u64,
}

async fn reconcile(cm: Arc<ConfigMap>, rec: Arc<Mutex<Rec>>) -> Result<Action, Infallible> {
    let start = wall_clock();
    let stamp = cm.metadata.annotations.as_ref().and_then(|a| a.get(SENT)).cloned();
    let mut r = rec.lock().unwrap();
    let Some(stamp) = stamp else {
        r.initial += 1;
        if r.initial == r.objects {
            if let Some(tx) = r.warm.take() {
                let _ = tx.send(());
            }
        }
        return Ok(Action::await_change());
    };
    let (k, ms) = stamp.split_once(' ').unwrap_or(("-1", "0"));
    let phase: i64 = k.parse().unwrap_or(-1);
    let at: f64 = ms.parse().unwrap_or(0.0);
    if !r.timing || phase != r.phase {
        r.late += 1;
        return Ok(Action::await_change());
    }
    r.latencies.push(start - at);
    r.stamps.push(at);
    r.last_start = start;
    if r.latencies.len() == r.events {
        if let Some(tx) = r.done.take() {
            let _ = tx.send(());
        }
    }
    Ok(Action::await_change())
}

fn error_policy(_: Arc<ConfigMap>, _: &Infallible, _: Arc<Mutex<Rec>>) -> Action {
    Action::await_change()
}

/// The nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn result(rate: f64, events: usize, latencies: &[f64], stamps: &[f64], last_start: f64) -> serde_json::Value {
    let mut sorted = latencies.to_vec();
    sorted.sort_by(f64::total_cmp);
    let first = stamps.iter().cloned().fold(f64::INFINITY, f64::min);
    let last = stamps.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let span = (last - first) / 1000.0;
    let sent_rate = if span > 0.0 { (stamps.len() - 1) as f64 / span } else { f64::NAN };
    let max = percentile(&sorted, 1.0);
    serde_json::json!({
        "rate": rate,
        "events": events,
        "reconciled": latencies.len(),
        "sentRate": sent_rate,
        "p50": percentile(&sorted, 0.5),
        "p90": percentile(&sorted, 0.9),
        "p99": percentile(&sorted, 0.99),
        "max": max,
        "drainMs": last_start - last,
        "maxDepth": -1,
        "sustained": latencies.len() == events && !(sent_rate < 0.9 * rate) && max < 1000.0,
    })
}

/// Asks the server for phase `k` (a bare HTTP/1.1 POST, so the peer needs
/// no second HTTP client) and answers its JSON body.
fn go(url: &str, k: usize) -> serde_json::Value {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(host).expect("connect");
    write!(
        s,
        "POST /_replay/go?phase={k} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("{}");
    serde_json::from_str(body).unwrap_or(serde_json::Value::Null)
}

#[tokio::main]
async fn main() {
    let url = arg("url").expect("--url");
    let objects: usize = arg("objects").and_then(|s| s.parse().ok()).unwrap_or(0);
    let concurrency: u16 = arg("concurrency").and_then(|s| s.parse().ok()).unwrap_or(1);
    let timeout_ms: u64 = arg("timeout").and_then(|s| s.parse().ok()).unwrap_or(60_000);

    let client = Client::try_from(Config::new(url.parse().expect("url"))).expect("client");
    let api: Api<ConfigMap> = Api::all(client);
    let (warm_tx, warm_rx) = oneshot::channel();
    let rec = Arc::new(Mutex::new(Rec { objects, warm: Some(warm_tx), ..Rec::default() }));
    // kube-rs's defaults: paginated lists of 500, no debounce; the store
    // keeps managedFields (stripping them needs an unstable feature).
    let controller = Controller::new(api, watcher::Config::default())
        .with_config(ControllerConfig::default().concurrency(concurrency));
    let store = controller.store();
    let t0 = Instant::now();
    tokio::spawn(controller.run(reconcile, error_policy, rec.clone()).for_each(|_| async {}));
    if tokio::time::timeout(Duration::from_secs(600), warm_rx).await.is_err() {
        eprintln!("timed out waiting for the first reconciles");
        std::process::exit(1);
    }
    let ready_ms = t0.elapsed().as_secs_f64() * 1000.0;

    let mut phases = Vec::new();
    for k in 0.. {
        // The phase is set before it is asked for: a change the server
        // sends before its answer arrives is counted too. Its size comes
        // with the answer.
        let (tx, rx) = oneshot::channel();
        {
            let mut r = rec.lock().unwrap();
            r.phase = k as i64;
            r.events = usize::MAX;
            r.latencies = Vec::new();
            r.stamps = Vec::new();
            r.last_start = 0.0;
            r.done = Some(tx);
            r.timing = true;
        }
        let u = url.clone();
        let answer = tokio::task::spawn_blocking(move || go(&u, k)).await.unwrap();
        if answer["done"].as_bool() == Some(true) || answer.is_null() {
            break;
        }
        let rate = answer["rate"].as_f64().unwrap_or(0.0);
        let events = answer["events"].as_u64().unwrap_or(0) as usize;
        {
            let mut r = rec.lock().unwrap();
            r.events = events;
            if r.latencies.len() >= events {
                if let Some(tx) = r.done.take() {
                    let _ = tx.send(());
                }
            }
        }
        let _ = tokio::time::timeout(Duration::from_millis(timeout_ms), rx).await;
        let row = {
            let mut r = rec.lock().unwrap();
            r.timing = false;
            r.done = None;
            result(rate, events, &r.latencies, &r.stamps, r.last_start)
        };
        let sustained = row["sustained"].as_bool() == Some(true);
        phases.push(row);
        // Past its rate the queue only grows: higher rates would tell nothing.
        if !sustained {
            break;
        }
    }
    let late = rec.lock().unwrap().late;
    let line = serde_json::json!({
        "peer": "kube-rs",
        "version": "kube 5.0.0 Controller, k8s-openapi 0.29.0 (v1_37)",
        "concurrency": concurrency,
        "objects": store.state().len(),
        "readyMs": ready_ms,
        "late": late,
        "phases": phases,
    });
    println!("{line}");
    std::process::exit(0);
}

//! A kube-rs `reflector` + `watcher` on ConfigMaps or Pods (`--kind`; all
//! namespaces) against the replay server: first full sync, live heap after
//! sync (a counting global allocator), RSS, then watch events/s. Prints one
//! JSON line once it posted /_replay/done, then drives the watcher on (the
//! server ends the watch with a 410 and times the relist) until the driver
//! kills it.
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Debug;
use std::hash::Hash;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use k8s_openapi::serde::de::DeserializeOwned;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{Api, Client, Config, Resource, ResourceExt};

/// Counts the bytes allocated and not yet freed: Rust's "heap in use".
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A field of /proc/self/status (VmRSS, VmHWM) in bytes.
fn proc_status(field: &str) -> i64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(field).and_then(|r| r.strip_prefix(':')) {
            let kb: i64 = rest.trim().trim_end_matches(" kB").trim().parse().unwrap_or(-1);
            return kb * 1024;
        }
    }
    -1
}

/// Posts to the replay server: `go` starts the watch events, `done` ends
/// the watch phase (a bare HTTP/1.1 POST, so the peer needs no second HTTP
/// client).
fn post(url: &str, what: &str) {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(host).expect("connect");
    write!(
        s,
        "POST /_replay/{what} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut sink = Vec::new();
    let _ = s.read_to_end(&mut sink);
}

fn arg(name: &str) -> Option<String> {
    let flag = format!("--{name}=");
    std::env::args().find_map(|a| a.strip_prefix(&flag).map(str::to_owned))
}

#[tokio::main]
async fn main() {
    let url = arg("url").or_else(|| std::env::var("REPLAY_URL").ok()).expect("--url");
    let expected: usize = arg("objects").and_then(|s| s.parse().ok()).unwrap_or(0);
    let events: u64 = arg("events").and_then(|s| s.parse().ok()).unwrap_or(0);
    let streaming = arg("mode").as_deref() == Some("stream");

    let config = Config::new(url.parse().expect("url"));
    let client = Client::try_from(config).expect("client");
    // The typed API of the kind, as a controller would use.
    if arg("kind").as_deref() == Some("pods") {
        run(Api::<Pod>::all(client), url, expected, events, streaming).await;
    } else {
        run(Api::<ConfigMap>::all(client), url, expected, events, streaming).await;
    }
}

async fn run<K>(api: Api<K>, url: String, expected: usize, events: u64, streaming: bool)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Default + Eq + Hash + Clone,
{
    // Default: paginated lists of 500; streaming_lists() for the stream mode.
    let wc = if streaming {
        watcher::Config::default().streaming_lists()
    } else {
        watcher::Config::default()
    };
    let (reader, writer) = reflector::store();
    // The same managedFields handling as the other peers: stripped before
    // the store holds the object.
    let stream = reflector(
        writer,
        watcher(api, wc).modify(|cm| cm.managed_fields_mut().clear()),
    );
    let mut stream = std::pin::pin!(stream);

    // The live bytes before the watcher starts: the driver counts what the
    // cache adds, not the runtime's own allocations.
    let heap_base = LIVE.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let mut sync_ms = 0.0;
    let mut heap = 0isize;
    let mut rss = 0i64;
    let mut synced = false;
    let mut seen = 0u64;
    let mut started = Instant::now();
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                eprintln!("watcher error: {e}");
                continue;
            }
        };
        match event {
            watcher::Event::InitDone if !synced => {
                synced = true;
                sync_ms = t0.elapsed().as_secs_f64() * 1000.0;
                heap = LIVE.load(Ordering::Relaxed);
                rss = proc_status("VmRSS");
                started = Instant::now();
                let u = url.clone();
                tokio::task::spawn_blocking(move || post(&u, "go")).await.unwrap();
                if events == 0 {
                    break;
                }
            }
            watcher::Event::Apply(_) if synced => {
                seen += 1;
                if seen == events {
                    break;
                }
            }
            _ => {}
        }
    }
    let watch_s = started.elapsed().as_secs_f64();
    // The end of the watch phase: the driver reads the CPU time, then the
    // server sends the 410.
    let u = url.clone();
    tokio::task::spawn_blocking(move || post(&u, "done")).await.unwrap();
    let line = serde_json::json!({
        "peer": "kube-rs",
        "version": "kube 5.0.0, k8s-openapi 0.29.0 (v1_37)",
        "objects": reader.state().len(),
        "expected": expected,
        "syncMs": sync_ms,
        "heap": heap,
        "heapBase": heap_base,
        "rss": rss,
        "peakRss": proc_status("VmHWM"),
        "events": events,
        "eventsPerSecond": events as f64 / watch_s,
    });
    println!("{line}");
    // The watcher lists again after the 410 only while it is polled: it is
    // driven on until the driver kills the process.
    while let Some(event) = stream.next().await {
        if let Err(e) = event {
            eprintln!("watcher error after the watch phase: {e}");
        }
    }
}

//! The cost of diagnostics after a keystroke, in CPU time (the whole process's, so threads the
//! engine starts count too), on a real catalog: the first open (load and check), then keystrokes
//! in one package's file, each followed by the check and the diagnostics serialized as they would
//! be sent.
//!
//! `cargo run --release -p fbc-lsp --example latency -- CATALOG_DIR [PACKAGE] [KEYSTROKES]`
//! (the package with the most bundles when none is named).

use std::path::PathBuf;

use fbc_lsp::{Server, Settings};
use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

fn cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn rss_mib() -> (f64, f64) {
    let now = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * 4096.0 / 1048576.0);
    // SAFETY: `u` is a valid rusage for the call to fill.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    (now, u.ru_maxrss as f64 / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(root) = args.first().map(PathBuf::from) else {
        eprintln!("usage: latency CATALOG_DIR [PACKAGE] [KEYSTROKES]");
        std::process::exit(2);
    };
    let root = root.canonicalize().expect("the catalog directory");
    let keystrokes: usize = args.get(2).and_then(|k| k.parse().ok()).unwrap_or(20);
    let catalog = fbc_core::catalog::load(&root).expect("a catalog");
    let package = args.get(1).cloned().unwrap_or_else(|| {
        catalog
            .index()
            .packages()
            .max_by_key(|p| p.bundles.len())
            .map(|p| p.name.clone())
            .expect("a package")
    });
    let idx = catalog.index().package(&package).expect("the package");
    let file = catalog
        .file_of(
            idx.channels
                .first()
                .copied()
                .or(idx.bundles.first().copied())
                .expect("a blob"),
        )
        .path
        .clone();
    let bundles = idx.bundles.len();
    drop(catalog);
    let path = root.join(&file);
    let text = std::fs::read_to_string(&path).expect("the file");
    let uri = fbc_lsp::from_path(&path);
    let mut server = Server::new(Settings::default(), vec![root.clone()]);
    let t0 = cpu_ms();
    server.open(uri.clone(), 1, text.clone());
    server.flush();
    let sent = serde_json::to_string(&server.take_messages())
        .unwrap()
        .len();
    let open = cpu_ms() - t0;
    // A keystroke: a character typed at the end of the file's first channel name, then taken back.
    let at = text
        .find("\nname: ")
        .map(|i| i + "\nname: ".len())
        .unwrap_or(0);
    let line = text[..at].matches('\n').count() as u32;
    let col = text[..at]
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .encode_utf16()
        .count() as u32;
    let mut costs = Vec::new();
    for k in 0..keystrokes {
        let (range, new) = if k % 2 == 0 {
            (
                Range::new(Position::new(line, col), Position::new(line, col)),
                "x",
            )
        } else {
            (
                Range::new(Position::new(line, col), Position::new(line, col + 1)),
                "",
            )
        };
        let t = cpu_ms();
        server.change(
            &uri,
            k as i32 + 2,
            vec![TextDocumentContentChangeEvent {
                range: Some(range),
                range_length: None,
                text: new.into(),
            }],
        );
        server.flush();
        let msgs = server.take_messages();
        let _ = serde_json::to_string(&msgs).unwrap();
        costs.push(cpu_ms() - t);
    }
    costs.sort_by(|a, b| a.total_cmp(b));
    let (now, peak) = rss_mib();
    println!("catalog {}", root.display());
    println!(
        "package {package} ({bundles} bundles), file {file} ({} bytes)",
        text.len()
    );
    println!("open (load, check, first diagnostics, {sent} bytes sent): {open:.0} ms CPU");
    println!(
        "keystroke, {} of them: median {:.1} ms CPU, max {:.1} ms CPU",
        costs.len(),
        costs[costs.len() / 2],
        costs[costs.len() - 1]
    );
    println!("memory: resident {now:.0} MiB, peak {peak:.0} MiB");
}

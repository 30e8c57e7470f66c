//! The commands as a user runs them: `fbc-edit list DIR` and `fbc-edit validate -o json DIR` as
//! whole processes (start-up, threads, first-touch page faults, output, exit), beside the read
//! floor, `cat` of the same files to `/dev/null`. For each catalog it prints the medians of the
//! runs: wall time, CPU time (user + system) and peak resident memory, and each command's ratio to
//! the read floor, the figure to track.
//!
//! Environment variables (each, when set, must name an existing directory, or the bench panics):
//! - `FBC_BENCH_CERTIFIED`, `FBC_BENCH_COMMUNITY`: the certified-operators v4.18 and
//!   community-operators-prod v4.20 catalogs (unset: their slices in `testdata/real`);
//! - `FBC_BENCH_JSON`: a generated JSON catalog (`target/release/examples/gen_catalog DIR`);
//! - `FBC_BENCH_RUNS`: runs per command (default 10);
//! - `FBC_BENCH_EXE`: another `fbc-edit` binary to time (an older build, to compare; default: the
//!   release binary as `cargo build --release` makes it, which the bench builds first: the one
//!   `cargo bench` builds for it has the tests' features, fault injection among them, and a
//!   different layout).
//!
//! Runs are interleaved (floor, list, validate, floor, …) so a machine's changing load weighs on
//! every column alike; wall times mean something only on an idle machine, CPU times otherwise too.

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One finished process: how long it took, the CPU it used and its peak resident memory.
#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    cpu: Duration,
    max_rss_kb: u64,
}

/// Runs `cmd` with its output to `/dev/null` and measures it with `wait4`, which gives this child's
/// own CPU time and peak memory.
#[expect(
    clippy::zombie_processes,
    reason = "the child is waited for with wait4, which also gives its resource usage"
)]
fn run(cmd: &mut Command) -> Run {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills; the child is ours and waited for once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to a status and a rusage owned by this frame.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "wait4 failed for {cmd:?}");
    let code = std::process::ExitStatus::from_raw(status);
    // `validate` exits 1 when the catalog has errors; anything else is a failure.
    assert!(
        matches!(code.code(), Some(0 | 1)),
        "{cmd:?} ended with {code}"
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Run {
        wall,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss as u64,
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn files(p: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(p) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files(&e, out);
        } else {
            out.push(e);
        }
    }
}

fn catalog_dir(var: &str, fallback: Option<&str>) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.is_dir(),
                "{var}={} is not a directory: make it (see the header of benches/process.rs) or unset {var}",
                dir.display()
            );
            Some(dir)
        }
        None => fallback.map(|f| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/real")
                .join(f);
            assert!(dir.is_dir(), "{} is missing", dir.display());
            dir
        }),
    }
}

/// Builds `fbc-edit` as a user does (`cargo build --release`, no test features) and gives its path.
fn release_binary() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--bin",
            "fbc-edit",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo build --release failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["target"]["name"] == "fbc-edit")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the fbc-edit binary it built")
}

fn main() {
    // `cargo bench` passes `--bench`; a filter is not taken.
    let runs: usize = std::env::var("FBC_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
        .max(1);
    let catalogs: Vec<(&str, PathBuf)> = [
        (
            "certified-v4.18",
            catalog_dir(
                "FBC_BENCH_CERTIFIED",
                Some("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
            ),
        ),
        (
            "community-v4.20",
            catalog_dir(
                "FBC_BENCH_COMMUNITY",
                Some("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20"),
            ),
        ),
        ("generated-json", catalog_dir("FBC_BENCH_JSON", None)),
    ]
    .into_iter()
    .filter_map(|(name, dir)| dir.map(|d| (name, d)))
    .collect();
    let exe = std::env::var_os("FBC_BENCH_EXE").map_or_else(release_binary, PathBuf::from);
    assert!(exe.is_file(), "{} is not a file", exe.display());
    println!(
        "{:<16} {:>9} {:<9} {:>9} {:>9} {:>8} {:>8}",
        "catalog", "MB", "command", "wall ms", "cpu ms", "RSS MB", "× floor"
    );
    for (name, dir) in catalogs {
        let mut all = Vec::new();
        files(&dir, &mut all);
        let bytes: u64 = all
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        let commands: [(&str, Command); 3] = [
            ("cat", {
                let mut c = Command::new("cat");
                c.args(&all);
                c
            }),
            ("list", {
                let mut c = Command::new(&exe);
                c.arg("list").arg(&dir);
                c
            }),
            ("validate", {
                let mut c = Command::new(&exe);
                c.args(["validate", "-o", "json"]).arg(&dir);
                c
            }),
        ];
        let mut commands = commands;
        // One untimed round: the files into the page cache, the binary's pages too.
        for (_, c) in &mut commands {
            run(c);
        }
        let mut results: Vec<Vec<Run>> = vec![Vec::new(); commands.len()];
        for _ in 0..runs {
            for (i, (_, c)) in commands.iter_mut().enumerate() {
                results[i].push(run(c));
            }
        }
        let floor = median(results[0].iter().map(|r| r.wall).collect());
        let floor_cpu = median(results[0].iter().map(|r| r.cpu).collect());
        for ((command, _), rs) in commands.iter().zip(&results) {
            let wall = median(rs.iter().map(|r| r.wall).collect());
            let cpu = median(rs.iter().map(|r| r.cpu).collect());
            let rss = rs.iter().map(|r| r.max_rss_kb).max().unwrap_or(0);
            println!(
                "{:<16} {:>9.1} {:<9} {:>9.1} {:>9.1} {:>8.1} {:>8}",
                name,
                bytes as f64 / 1e6,
                command,
                wall.as_secs_f64() * 1e3,
                cpu.as_secs_f64() * 1e3,
                rss as f64 / 1024.0,
                format!(
                    "{:.1}/{:.1}",
                    wall.as_secs_f64() / floor.as_secs_f64(),
                    cpu.as_secs_f64() / floor_cpu.as_secs_f64().max(1e-4)
                ),
            );
        }
    }
    println!("(× floor: wall/cpu ratio to `cat` of the same files; medians of {runs} runs)");
}

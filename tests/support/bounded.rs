//! Running fbc-edit as a user would, within a time budget, and measuring what the run cost: its
//! wall time and its peak resident memory (as GNU time reports it). A run over its time budget is killed and reported, so an attack that hangs the program
//! fails its test instead of hanging the suite.
//!
//! `FBC_EDIT_TEST_BIN` runs another build of fbc-edit instead of this one (to measure an attack
//! against an older build).

#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one bounded run did.
#[derive(Debug)]
pub struct Run {
    /// The exit status; `None` when it was killed (over its time) or died of a signal.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// Peak resident memory, in MiB.
    pub peak_mib: u64,
    pub timed_out: bool,
}

impl Run {
    /// Panics with what the run printed unless it exited with `code` within `secs` seconds and
    /// stayed under `mib` MiB.
    pub fn expect(&self, code: i32, secs: u64, mib: u64) -> &Run {
        // Shown with --nocapture: what the run cost.
        eprintln!(
            "run: exit {:?} in {:.2} s, peak {} MiB",
            self.status,
            self.elapsed.as_secs_f64(),
            self.peak_mib
        );
        assert!(
            !self.timed_out,
            "killed after {:?} (over its time budget): {}",
            self.elapsed, self.stderr
        );
        assert_eq!(
            self.status,
            Some(code),
            "exit status; stdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        assert!(
            self.elapsed < Duration::from_secs(secs),
            "took {:?} (budget {secs} s): {}",
            self.elapsed,
            self.stderr
        );
        assert!(
            self.peak_mib < mib,
            "peak memory {} MiB (budget {mib} MiB): {}",
            self.peak_mib,
            self.stderr
        );
        self
    }
}

/// The fbc-edit binary under test.
pub fn binary() -> std::path::PathBuf {
    std::env::var_os("FBC_EDIT_TEST_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("fbc-edit"))
}

/// A command for the binary under test.
pub fn fbc_edit() -> Command {
    Command::new(binary())
}

/// Runs `cmd` (stdin closed), killing it after `limit`. It runs under GNU time, which reports
/// its peak memory: the kernel's figure for a child of this (large) test process would count the
/// pages it shared with this process before `exec`.
pub fn run(cmd: Command, limit: Duration) -> Run {
    use std::os::unix::process::CommandExt as _;
    let report = tempfile::NamedTempFile::new().expect("a file for GNU time's report");
    let mut timed = Command::new("/usr/bin/time");
    timed
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(report.path())
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        timed.current_dir(dir);
    }
    let start = Instant::now();
    let mut child = timed
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run /usr/bin/time ({e}); .ci/test-setup installs it"));
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    // Only the first few MiB of what it prints are kept.
    let keep = |r: &mut dyn Read| {
        let mut v = Vec::new();
        let _ = r.take(4 << 20).read_to_end(&mut v);
        let _ = std::io::copy(r, &mut std::io::sink());
        String::from_utf8_lossy(&v).into_owned()
    };
    let out_thread = std::thread::spawn(move || keep(&mut out));
    let err_thread = std::thread::spawn(move || keep(&mut err));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the command") {
            break status;
        }
        if !timed_out && start.elapsed() > limit {
            timed_out = true;
            // SAFETY: a signal to the process group of our own child.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let report = std::fs::read_to_string(report.path()).unwrap_or_default();
    let kib: u64 = match report
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back()
    {
        Some(kib) => kib,
        // A run killed over its time has no report; any other run must have one.
        None if timed_out => 0,
        None => panic!("GNU time gave no peak memory: {report:?}"),
    };
    Run {
        status: status.code().filter(|_| !timed_out),
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
        elapsed,
        peak_mib: kib / 1024,
        timed_out,
    }
}

/// Bytes the files below `dir` take on disk (each file once, however many names it has; a
/// directory that does not exist holds none).
pub fn disk_bytes(dir: &std::path::Path) -> u64 {
    fn walk(dir: &std::path::Path, seen: &mut std::collections::HashSet<(u64, u64)>) -> u64 {
        use std::os::unix::fs::MetadataExt as _;
        let Ok(read) = std::fs::read_dir(dir) else {
            return 0;
        };
        read.flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => walk(&e.path(), seen),
                Ok(m) if m.is_file() && seen.insert((m.dev(), m.ino())) => m.blocks() * 512,
                _ => 0,
            })
            .sum()
    }
    walk(dir, &mut std::collections::HashSet::new())
}

//! Input written by someone else (a pull request's catalog, a bundle PR's release config, a config
//! file): names in it never lead a write outside the repository, a FIFO or device never hangs a
//! command, a huge sparse file costs no memory, and hostile YAML costs seconds at most.

use crate::common;

use std::io::Read as _;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn fbc_edit() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT").env_remove("FBC_EDIT_LIMITS");
    c
}

/// What a command did, once it finished within `limit`; a command still running then is killed
/// and the test fails (a hang must fail, not stall the suite).
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

fn run_within(limit: Duration, cmd: &mut Command) -> Ran {
    let started = Instant::now();
    let out = cmd.timeout(limit).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let Some(code) = out.status.code() else {
        panic!(
            "killed (signal {:?}) after {:?}, over the {limit:?} allowed\nstdout: {stdout}\nstderr: {stderr}",
            out.status.signal(),
            started.elapsed()
        );
    };
    Ran {
        code,
        stdout,
        stderr,
    }
}

const HANG: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "{path:?}");
}

/// A copy of the demo catalog with a FIFO, a link to it, and a FIFO `.indexignore` in a
/// subdirectory.
fn catalog_with_fifos() -> tempfile::TempDir {
    let tmp = common::demo_copy();
    mkfifo(&tmp.path().join("pipe.yaml"));
    std::os::unix::fs::symlink("pipe.yaml", tmp.path().join("link.json")).unwrap();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    mkfifo(&tmp.path().join("sub/.indexignore"));
    tmp
}

#[test]
fn a_fifo_in_a_catalog_is_reported_and_the_rest_loads() {
    let dir = catalog_with_fifos();
    for command in ["list", "validate"] {
        let ran = run_within(HANG, fbc_edit().arg(command).arg(dir.path()));
        let all = ran.all();
        for file in ["pipe.yaml", "link.json", "sub/.indexignore"] {
            assert!(
                all.lines()
                    .any(|l| l.split(": ").next().unwrap().ends_with(file)
                        && l.contains("not a regular file (a FIFO)")),
                "{command}: {file}: {all}"
            );
        }
        if command == "list" {
            assert_eq!(ran.code, 0, "{all}");
            assert!(all.contains("cache-operator"), "{all}");
        } else {
            assert_eq!(ran.code, 1, "{all}");
            // The demo catalog itself is valid: the three files are the only problems.
            assert!(all.contains("invalid: 3 errors, 0 warnings"), "{all}");
        }
    }
    let catalog = fbc_edit::catalog::load(dir.path()).unwrap();
    assert!(
        catalog
            .index()
            .package_names()
            .iter()
            .any(|p| p == "cache-operator")
    );
}

#[test]
fn a_fifo_in_a_bundle_or_package_manifest_directory_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle");
    common::copy_dir(&local("testdata/bundles/foo-v0.2.0"), &bundle);
    mkfifo(&bundle.join("manifests/pipe.yaml"));
    let ran = run_within(HANG, fbc_edit().arg("check-bundle").arg(&bundle));
    assert!(
        ran.all().contains("pipe.yaml") && ran.all().contains("not a regular file (a FIFO)"),
        "{}",
        ran.all()
    );
    // render passes over what it cannot read, as opm does: it ends, with the bundle.
    let ran = run_within(HANG, fbc_edit().arg("render").arg(&bundle));
    assert!(
        ran.stdout.contains("\"name\": \"foo.v0.2.0\""),
        "{}",
        ran.all()
    );

    let manifests = tmp.path().join("etcd");
    common::copy_dir(&local("testdata/migrate/etcd"), &manifests);
    mkfifo(&manifests.join("0.9.4/pipe.crd.yaml"));
    let ran = run_within(
        HANG,
        fbc_edit().args(["migrate", "--check"]).arg(&manifests),
    );
    assert!(
        ran.all().contains("pipe.crd.yaml") && ran.all().contains("not a regular file (a FIFO)"),
        "{}",
        ran.all()
    );
}

/// Runs `cmd` to its end (killing it after `limit`) and returns its exit code, output and peak
/// resident memory in bytes. The child is reaped by `wait4`, which also gives its own peak.
#[allow(clippy::zombie_processes)]
fn peak_memory(cmd: &mut std::process::Command, limit: Duration) -> (i32, String, u64) {
    let out = tempfile::tempfile().unwrap();
    let child = cmd
        .stdout(out.try_clone().unwrap())
        .stderr(out.try_clone().unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let (status, usage) = loop {
        let mut status = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            break (status, usage);
        }
        if started.elapsed() > limit {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(libc::WIFEXITED(status), "ended by signal: {status}");
    let mut text = String::new();
    let mut out = out;
    std::io::Seek::rewind(&mut out).unwrap();
    out.read_to_string(&mut text).unwrap();
    (
        libc::WEXITSTATUS(status),
        text,
        usage.ru_maxrss as u64 * 1024,
    )
}

#[test]
fn a_sparse_file_over_4_gib_is_refused_before_any_buffer_is_sized() {
    let dir = common::demo_copy();
    let huge = std::fs::File::create(dir.path().join("huge.json")).unwrap();
    huge.set_len((4 << 30) + 1).unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("fbc-edit"));
    cmd.arg("list").arg(dir.path());
    let (code, text, peak) = peak_memory(&mut cmd, Duration::from_secs(120));
    assert!(
        text.lines()
            .any(|l| l.starts_with("huge.json") && l.contains("larger than 4 GiB")),
        "{text}"
    );
    assert!(text.contains("cache-operator"), "the rest loads: {text}");
    assert_eq!(code, 0, "{text}");
    assert!(peak < 300 << 20, "peak resident memory {} MiB", peak >> 20);
}

#[test]
fn a_fifo_config_file_is_refused_and_the_defaults_used() {
    let cfg = tempfile::tempdir().unwrap();
    mkfifo(&cfg.path().join("config.yaml"));
    let ran = run_within(
        HANG,
        fbc_edit()
            .arg("info")
            .env("FBC_EDIT_CONFIG_DIR", cfg.path()),
    );
    assert_eq!(ran.code, 0);
    assert!(
        ran.stdout.contains("warning: ")
            && ran.stdout.contains("config.yaml")
            && ran.stdout.contains("not a regular file (a FIFO)"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("  quit             q/ctrl-c"),
        "{}",
        ran.stdout
    );
}

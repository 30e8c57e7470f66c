//! `fbc-edit lsp` driven by a real editor: Neovim's built-in client, headless.

mod actions;
mod images;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::{copy_dir, demo};

/// Neovim opens a catalog file, receives diagnostics as a wrong default channel is typed,
/// follows a `replaces` to its bundle and applies the quick fix the server offers; the file it
/// saves is, byte for byte, what `fbc-edit edit set-default-channel` writes.
#[test]
fn neovim_opens_checks_follows_and_fixes() {
    let nvim = which("nvim").expect("nvim on PATH (.ci/test-setup installs Debian's neovim)");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalogs/v4.18");
    copy_dir(&demo(), &root);
    let file = root.join("cache-operator/catalog.yaml");
    let original = std::fs::read(&file).unwrap();
    let out = tmp.path().join("steps.txt");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/lsp/neovim.lua");
    let mut child = Command::new(nvim)
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n"])
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .env("FBC_LSP_BIN", assert_cmd::cargo::cargo_bin("fbc-edit"))
        .env("FBC_LSP_FILE", &file)
        .env("FBC_LSP_ROOT", tmp.path())
        .env("FBC_LSP_OUT", &out)
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .env("XDG_CONFIG_HOME", tmp.path().join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("neovim did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let steps = std::fs::read_to_string(&out).unwrap_or_default();
    let text = String::from_utf8(original.clone()).unwrap();
    let line_of = |s: &str| text[..text.find(s).unwrap()].matches('\n').count();
    let expected_steps = format!(
        "opened errors=0\ntyped errors=1 line={} code=FBC",
        line_of("defaultChannel")
    );
    assert!(steps.starts_with(&expected_steps), "{steps}");
    assert!(
        steps.contains(&format!(
            "definition line={} same_file=true",
            line_of("name: cache-operator.v1.0.0\npackage")
        )),
        "{steps}"
    );
    assert!(
        steps.contains("applied Make candidate the default channel"),
        "{steps}"
    );
    // The command's edit of the same file, as it was on disk.
    let other = tempfile::tempdir().unwrap();
    copy_dir(&demo(), other.path());
    let status = assert_cmd::Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["edit"])
        .arg(other.path())
        .args([
            "set-default-channel",
            "-p",
            "cache-operator",
            "-c",
            "candidate",
        ])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(other.path().join("cache-operator/catalog.yaml")).unwrap()
    );
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

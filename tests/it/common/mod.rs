//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// The real catalogs, templates, bundles and package manifests in testdata/real (provenance in
/// its SOURCES.md).
#[allow(dead_code)]
pub fn real_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real")
}

/// One directory of testdata/real. A test that needs it fails when it is missing, rather than
/// running less than it claims.
#[allow(dead_code)]
pub fn real(name: &str) -> PathBuf {
    let p = real_root().join(name);
    assert!(
        p.is_dir(),
        "{} is missing (see testdata/real/SOURCES.md)",
        p.display()
    );
    p
}

/// splitmix64: a tiny deterministic generator for randomised tests.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Copies a directory tree (files become writable copies, so saving into them works even when the
/// source is read-only).
#[allow(dead_code)]
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::write(&target, std::fs::read(e.path()).unwrap()).unwrap();
        }
    }
}

/// The screen the TUI draws for `m` at `w`×`h`, without colours, as text (trailing spaces trimmed).
#[allow(dead_code)]
pub fn screen(m: &mut fbc_edit::tui::app::Model, w: u16, h: u16) -> String {
    use std::fmt::Write as _;
    // As the runtime does: the model learns the terminal's size, then it is drawn.
    fbc_edit::tui::app::update(
        m,
        fbc_edit::tui::app::Action::Resize {
            width: w,
            height: h,
        },
    );
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| fbc_edit::tui::view::view(&*m, f, &fbc_edit::tui::view::Theme::plain()))
        .unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let line: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `CODE file` or `CODE file:line` for a diagnostic: what tests compare.
#[allow(dead_code)]
pub fn code_at(d: &fbc_core::catalog::Diagnostic) -> String {
    if d.location.line == 0 {
        format!("{} {}", d.code, d.location.file)
    } else {
        format!("{} {}:{}", d.code, d.location.file, d.location.line)
    }
}

/// The demo catalog shipped with the program.
#[allow(dead_code)]
pub fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

/// A copy of the demo catalog, to edit.
#[allow(dead_code)]
pub fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&demo(), tmp.path());
    tmp
}

/// The TUI's model with the catalog in `dir` loaded, as the runtime has it once loading is done.
#[allow(dead_code)]
/// The path of names selected in the tree (package, channel, bundle).
pub fn selected(m: &fbc_edit::tui::app::Model) -> Vec<String> {
    m.loaded().unwrap().selected().to_vec()
}

pub fn tui_model(dir: &Path) -> fbc_edit::tui::app::Model {
    let mut m = fbc_edit::tui::app::Model::new(
        dir.to_path_buf(),
        fbc_edit::tui::keymap::Keymap::default(),
        std::sync::Arc::new(fbc_core::catalog::Progress::default()),
    );
    let catalog = fbc_core::catalog::load(dir).unwrap();
    fbc_edit::tui::effects::settle(
        &mut m,
        fbc_edit::tui::app::Action::Loaded(Ok(Box::new(fbc_core::workspace::Workspace::open(
            catalog,
        )))),
    );
    m
}

/// Presses keys written like `j j l / cache enter`, as the runtime feeds them: words are keys
/// (`enter`, `esc`, `tab`, `space`, `backspace`, arrows, `pagedown`, `pageup`, `home`, `end`,
/// `ctrl-d`, `ctrl-u`, `ctrl-r`), anything else is typed character by character. Returns the work
/// left for the terminal.
#[allow(dead_code)]
pub fn press(m: &mut fbc_edit::tui::app::Model, keys: &str) -> Vec<fbc_edit::tui::app::Effect> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut effects = Vec::new();
    for word in keys.split(' ').filter(|w| !w.is_empty()) {
        let key = |c| vec![KeyEvent::new(c, KeyModifiers::NONE)];
        let ctrl = |c| vec![KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)];
        let events: Vec<KeyEvent> = match word {
            "enter" => key(KeyCode::Enter),
            "esc" => key(KeyCode::Esc),
            "tab" => key(KeyCode::Tab),
            "space" => key(KeyCode::Char(' ')),
            "backspace" => key(KeyCode::Backspace),
            "down" => key(KeyCode::Down),
            "up" => key(KeyCode::Up),
            "pagedown" => key(KeyCode::PageDown),
            "pageup" => key(KeyCode::PageUp),
            "home" => key(KeyCode::Home),
            "end" => key(KeyCode::End),
            "ctrl-d" => ctrl('d'),
            "ctrl-u" => ctrl('u'),
            "ctrl-r" => ctrl('r'),
            w => w
                .chars()
                .map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
                .collect(),
        };
        for ev in events {
            effects.extend(fbc_edit::tui::effects::press(m, ev));
        }
    }
    effects
}

/// The community-operators-prod layout of testdata/render-all unpacked into a temporary directory.
#[allow(dead_code)]
pub fn render_all_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/render-all/community-operators-prod.tar.gz");
    let file = std::fs::File::open(archive).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(tmp.path())
        .unwrap();
    tmp
}

/// What a command did, once it finished within its time; a command still running then is killed
/// and the test fails (a hang must fail, not stall the suite).
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Standard output, then standard error.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `cmd`, killing it after `limit`.
pub fn run_within(limit: std::time::Duration, cmd: &mut assert_cmd::Command) -> Ran {
    use std::os::unix::process::ExitStatusExt as _;
    let started = std::time::Instant::now();
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

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path, for a call that only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "{path:?}");
}

/// Every file under `dir`, by relative path, with its bytes.
#[allow(dead_code)]
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

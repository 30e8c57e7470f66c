//! The terminal UI's `update` and `view` read no file: loading, payload checks, the long strings
//! the details pane shows, bundle images a template edit names and path completion all happen on
//! workers, whose results come back as actions. Here every `update` and every frame runs on a
//! thread watched by `guard::reads`, the seam every read of the library passes, while the effects
//! are carried out unwatched, as the runtime's workers do; any read in between fails the test and
//! names what was read.

use crate::common;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::{Kind, Node, Progress, Str};
use fbc_core::guard::reads;
use fbc_core::template::Sources;
use fbc_core::template::memo::Memo;
use fbc_core::workspace::templates::TemplateSet;
use fbc_edit::tui::app::{Action, Effect, Model, TemplateView, update};
use fbc_edit::tui::keymap::Keymap;
use fbc_edit::tui::view::{Theme, view};

/// The model, the last frame drawn of it, and the pool its `update` and `view` run on: the pool's
/// threads record every read, so reads made by parallel work inside `update` count too.
struct Ui {
    m: Model,
    frame: String,
    pool: rayon::ThreadPool,
    reads: reads::Recorder,
}

impl Ui {
    fn new(dir: &Path) -> Ui {
        let recorder = reads::Recorder::new();
        let attach = recorder.clone();
        Ui {
            m: Model::new(
                dir.to_path_buf(),
                Keymap::default(),
                Arc::new(Progress::default()),
            ),
            frame: String::new(),
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .start_handler(move |_| attach.attach())
                .build()
                .unwrap(),
            reads: recorder,
        }
    }

    /// `update` then a frame, watched; the effects asked for are carried out unwatched (as the
    /// runtime's workers do) and their actions fed back the same way, until only work for the
    /// terminal is left.
    fn run(&mut self, action: Action, step: &str) -> Vec<Effect> {
        let mut left = Vec::new();
        let mut queue = VecDeque::from([action]);
        while let Some(a) = queue.pop_front() {
            let effects = self.watched(step, |m, frame| {
                let effects = update(m, a);
                draw(m, frame);
                effects
            });
            for e in effects {
                match fbc_edit::tui::effects::perform(&self.m, e) {
                    Ok(next) => queue.push_back(next),
                    Err(e) => left.push(e),
                }
            }
        }
        left
    }

    /// Runs `f` on the watched pool; fails naming `step` and what was read when anything was.
    fn watched<R: Send>(
        &mut self,
        step: &str,
        f: impl FnOnce(&mut Model, &mut String) -> R + Send,
    ) -> R {
        let Ui {
            m,
            frame,
            pool,
            reads,
        } = self;
        reads.take();
        let r = pool.install(|| f(m, frame));
        let seen = reads.take();
        assert!(
            seen.is_empty(),
            "{step}: update or view read {} time(s): {seen:#?}",
            seen.len()
        );
        r
    }

    /// Keys as `j l : add-image enter`: words are keys (`enter`, `esc`, `tab`, `space`,
    /// `ctrl-r`), anything else is typed. Each key is resolved in the keymap, as the runtime does,
    /// on the watched pool.
    fn keys(&mut self, keys: &str, step: &str) -> Vec<Effect> {
        let mut left = Vec::new();
        for word in keys.split(' ').filter(|w| !w.is_empty()) {
            let events: Vec<KeyEvent> = match word {
                "enter" => vec![KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)],
                "esc" => vec![KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)],
                "tab" => vec![KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)],
                "space" => vec![KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE)],
                "ctrl-r" => vec![KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)],
                w => w
                    .chars()
                    .map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
                    .collect(),
            };
            for ev in events {
                let action = self.watched(step, |m, _| fbc_edit::tui::input::action(m, &ev));
                left.extend(self.run(action, step));
            }
        }
        left
    }

    /// Moves down from the top until `path` is selected.
    fn select(&mut self, path: &[&str]) {
        self.keys("g g", "to the top");
        for _ in 0..50 {
            if self.selected() == path {
                return;
            }
            self.keys("j", "moving the selection");
        }
        panic!("{path:?} not reached:\n{}", self.frame);
    }

    fn selected(&self) -> Vec<String> {
        self.m.loaded().unwrap().selected().to_vec()
    }

    fn status(&self) -> String {
        self.m.status.clone().unwrap_or_default()
    }
}

/// A frame of `m` at 160×60, as text.
fn draw(m: &Model, frame: &mut String) {
    use std::fmt::Write as _;
    let (w, h) = (160, 60);
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| view(m, f, &Theme::plain())).unwrap();
    let buf = t.backend().buffer();
    frame.clear();
    for y in 0..h {
        let line: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        let _ = writeln!(frame, "{}", line.trim_end());
    }
}

/// A package whose strings are long and on one line, as generators write them, so the load leaves
/// them on disk: a package description, a bundle's CSV description and manifests; and a YAML 1.1
/// trap (`yes`) whose text the lint quotes.
fn long_strings_package() -> String {
    use base64::Engine as _;
    let words = |what: &str, n: usize| -> String {
        (0..n).map(|i| format!("{what}{i} ")).collect::<String>()
    };
    let manifest = |n: usize| {
        base64::engine::general_purpose::STANDARD.encode(format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"m{n}\"}},\"data\":{{\"k\":\"{}\"}}}}",
            "x".repeat(5000)
        ))
    };
    let p = "a-long-strings-operator";
    let bundle = |v: &str| {
        format!(
            "---\nschema: olm.bundle\nname: {p}.v{v}\npackage: {p}\nimage: quay.io/example/{p}-bundle:v{v}\nproperties:\n\
             - type: olm.package\n  value:\n    packageName: {p}\n    version: {v}\n\
             - type: olm.csv.metadata\n  value:\n    displayName: Long strings {v}\n    description: {}\n\
             - type: olm.bundle.object\n  value:\n    data: {}\n\
             - type: example.com/flag\n  value:\n    enabled: yes\n",
            words(&format!("csv-{v}-word"), 600),
            manifest(1),
        )
    };
    format!(
        "---\nschema: olm.package\nname: {p}\ndefaultChannel: stable\ndescription: {}\n\
         ---\nschema: olm.channel\npackage: {p}\nname: stable\nentries:\n- name: {p}.v1.0.0\n\
         ---\nschema: olm.channel\npackage: {p}\nname: fast\nentries:\n- name: {p}.v1.0.0\n- name: {p}.v1.1.0\n  replaces: {p}.v1.0.0\n{}{}",
        words("package-word", 700),
        bundle("1.0.0"),
        bundle("1.1.0"),
    )
}

/// Strings of `node` the load left on disk.
fn deferred(node: &Node, out: &mut usize) {
    match &node.kind {
        Kind::String(Str::Deferred { .. }) => *out += 1,
        Kind::Seq(items) => items.iter().for_each(|n| deferred(n, out)),
        Kind::Map(entries) => entries.iter().for_each(|e| deferred(&e.value, out)),
        _ => {}
    }
}

/// A session on a real catalog (bundles with manifests, package icons) with a package whose
/// strings the load leaves on disk: the selection moves over every entry, the details of each
/// drawn; edits, undo and redo on that package; a path completed. Nothing is read on the way.
#[test]
fn a_catalog_session_reads_nothing_in_update_or_view() {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(
        &common::real("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
        tmp.path(),
    );
    std::fs::create_dir(tmp.path().join("a-long-strings-operator")).unwrap();
    std::fs::write(
        tmp.path().join("a-long-strings-operator/catalog.yaml"),
        long_strings_package(),
    )
    .unwrap();
    let mut ui = Ui::new(tmp.path());
    ui.run(
        Action::Resize {
            width: 160,
            height: 60,
        },
        "resize",
    );
    // Loaded and validated on a worker, as the runtime does.
    let loaded = fbc_edit::tui::effects::load(tmp.path(), None);
    let Action::Loaded(Ok(ws)) = &loaded else {
        panic!("not loaded")
    };
    let long: usize = ws
        .catalog()
        .live_blobs()
        .map(|(_, b)| {
            let mut n = 0;
            deferred(&b.value, &mut n);
            n
        })
        .sum();
    assert!(long >= 20, "the catalog has {long} strings left on disk");
    ui.run(loaded, "load");
    assert_eq!(ui.selected(), ["a-long-strings-operator"]);
    // The package's description, left on disk, is on screen.
    assert!(
        ui.frame.contains("package-word0 package-word1"),
        "{}",
        ui.frame
    );

    // Every package opened, every channel and entry walked: the details of each drawn.
    let mut csv_descriptions = 0;
    let mut last = Vec::new();
    for _ in 0..2000 {
        ui.keys("l j", "moving the selection");
        let now = ui.selected();
        if now == last {
            break;
        }
        if ui.frame.contains("word0 csv-1.") {
            csv_descriptions += 1;
        }
        last = now;
    }
    assert!(
        csv_descriptions >= 3,
        "{csv_descriptions} long descriptions shown"
    );
    assert!(last.len() == 3, "{last:?}");

    // Edits on the package with long strings: the default channel, a deprecation, a promotion;
    // undo and redo. Each re-checks the package.
    ui.keys("g g", "to the top");
    assert_eq!(ui.selected(), ["a-long-strings-operator"]);
    ui.select(&["a-long-strings-operator", "fast"]);
    ui.keys("d y", "default channel");
    assert!(
        ui.status().starts_with("make fast the default channel"),
        "{}",
        ui.status()
    );
    ui.keys("x", "deprecate");
    ui.keys("old enter y", "deprecation message");
    assert!(ui.status().starts_with("deprecate"), "{}", ui.status());
    ui.select(&["a-long-strings-operator", "stable"]);
    ui.keys("p", "promote");
    ui.keys("enter", "promote: the bundle");
    ui.keys("enter", "promote: no skipRange");
    ui.keys("enter", "promote: no skips");
    ui.keys("enter", "promote: what it replaces");
    ui.keys("y", "promote: confirm");
    assert!(ui.status().starts_with("promote"), "{}", ui.status());
    assert_eq!(
        ui.m.loaded().unwrap().dirty,
        [
            "a-long-strings-operator/catalog.yaml",
            "a-long-strings-operator/deprecations.yaml"
        ]
    );
    ui.keys("u u", "undo");
    ui.keys("ctrl-r", "redo");
    // `:reload`: the load worker reads the catalog again; `update` applies the two edits again
    // (and keeps the filter) without reading anything.
    ui.keys("/ long-strings enter", "filter");
    let left = ui.keys(": reload enter", "reload");
    assert_eq!(left, [Effect::Load]);
    let reloaded = fbc_edit::tui::effects::load(tmp.path(), None);
    ui.run(reloaded, "reload: the unsaved edits applied again");
    assert_eq!(
        ui.status(),
        "read again; 2 of 2 unsaved edits applied again",
        "{}",
        ui.frame
    );
    assert_eq!(
        ui.m.loaded().unwrap().filter.as_deref(),
        Some("long-strings")
    );
    ui.keys("esc u u", "undo all");
    assert!(ui.m.loaded().unwrap().dirty.is_empty(), "{}", ui.status());

    // A path completed in the add-bundle question: the directory is listed on a worker.
    std::fs::create_dir(tmp.path().join("bundle-dir-to-add")).unwrap();
    let typed = format!("{}/bundle-dir-to", tmp.path().display());
    ui.keys(&format!("a {typed} tab"), "path completion");
    let completed = format!("{}/bundle-dir-to-add/", tmp.path().display());
    assert!(ui.frame.contains(&completed), "{}", ui.frame);
    ui.keys("esc", "closing the question");
}

/// A template edit that names an image no rendering asked for yet: the image is looked up on a
/// worker, and the rendering follows it.
#[test]
fn a_template_edit_that_names_a_new_image_reads_nothing_in_update_or_view() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = common::demo();
    let first = "quay.io/demo/cache-operator-bundle@sha256:c5d66fb45f32deb1366dde1d10717b593f1c99507321f9a40f41aab30ceea9a9";
    let second = "quay.io/demo/cache-operator-bundle@sha256:4ddaf490cb103e492977c2edc8358d455c6909bbc65eb7d680ecdfee7229a7b1";
    let file = tmp.path().join("semver.yaml");
    std::fs::write(
        &file,
        format!("schema: olm.semver\nstable:\n  bundles:\n  - image: {first}\n"),
    )
    .unwrap();
    let (sources, note) =
        Sources::for_template(&file, std::slice::from_ref(&catalog), Vec::new(), None).unwrap();
    let mut ui = Ui::new(tmp.path());
    ui.m.template = Some(TemplateView {
        file: file.clone(),
        source_note: note,
        notes: Vec::new(),
    });
    // Opened and rendered on a worker, as the runtime does.
    let set = TemplateSet::open(std::slice::from_ref(&file), Memo::new(sources)).unwrap();
    ui.run(
        Action::TemplatesOpened(Ok(Box::new(set))),
        "templates opened",
    );
    let bundles = |ui: &Ui| {
        let cat = ui.m.loaded().unwrap().ws.catalog();
        let idx = cat.index().package("cache-operator").unwrap();
        idx.bundles.len()
    };
    assert_eq!(bundles(&ui), 1);
    ui.keys(
        &format!(": add-image space {second} space stable enter"),
        "add-image",
    );
    assert_eq!(bundles(&ui), 2, "{}", ui.frame);
    assert!(ui.frame.contains("(u undoes, w writes)"), "{}", ui.frame);
    ui.keys("u", "undo");
    assert_eq!(bundles(&ui), 1);
    ui.keys("ctrl-r", "redo");
    assert_eq!(bundles(&ui), 2);
}

/// Review mode (`fbc-edit DIR --compare OLD`) on a real catalog where a package whose strings are
/// left on disk changed: the changes are worked out on a worker whichever catalog arrives first,
/// and again when the catalog is read anew; `update` and `view` only take them.
#[test]
fn a_review_session_reads_nothing_in_update_or_view() {
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let real = common::real("redhat-openshift-ecosystem__certified-operators__catalogs-v4.18");
    for (dir, package) in [
        (old.path(), long_strings_package()),
        // The newer bundle's long CSV description changed, and the package's long description.
        (
            new.path(),
            long_strings_package()
                .replace("csv-1.1.0-word7 ", "csv-1.1.0-word7 reworded ")
                .replace("package-word3 ", "package-word3 reworded "),
        ),
    ] {
        common::copy_dir(&real, dir);
        std::fs::create_dir(dir.join("a-long-strings-operator")).unwrap();
        std::fs::write(dir.join("a-long-strings-operator/catalog.yaml"), package).unwrap();
    }
    // Loaded on a worker, as the runtime does.
    let compared =
        || Action::CompareLoaded(Ok(Box::new(fbc_core::catalog::load(old.path()).unwrap())));
    let expect_changes = |ui: &Ui, step: &str| {
        let l = ui.m.loaded().unwrap();
        let texts: Vec<&str> = l.changes.iter().map(|c| c.text.as_str()).collect();
        assert!(
            texts.contains(&"package a-long-strings-operator changed"),
            "{step}: {texts:#?}"
        );
        assert!(
            texts
                .iter()
                .any(|t| t.contains("a-long-strings-operator.v1.1.0")),
            "{step}: {texts:#?}"
        );
        assert!(
            !texts
                .iter()
                .any(|t| t.contains("a-long-strings-operator.v1.0.0")),
            "{step}: {texts:#?}"
        );
        assert!(
            ui.frame.contains("package a-long-strings-operator changed"),
            "{step}:\n{}",
            ui.frame
        );
    };

    // The catalog compared with arrives after the catalog.
    let mut ui = Ui::new(new.path());
    let size = || Action::Resize {
        width: 160,
        height: 60,
    };
    ui.run(size(), "resize");
    ui.run(fbc_edit::tui::effects::load(new.path(), None), "load");
    ui.run(compared(), "the catalog compared with, after the catalog");
    expect_changes(&ui, "compared after");
    // Read anew (after `$EDITOR`, or a reload): the changes are worked out again.
    ui.run(fbc_edit::tui::effects::load(new.path(), None), "read anew");
    expect_changes(&ui, "read anew");
    ui.select(&["a-long-strings-operator"]);
    ui.keys("l j", "moving over the changed package");

    // The catalog compared with arrives first.
    let mut ui = Ui::new(new.path());
    ui.run(size(), "resize");
    ui.run(compared(), "the catalog compared with, before the catalog");
    ui.run(fbc_edit::tui::effects::load(new.path(), None), "load after");
    expect_changes(&ui, "compared before");
}

//! Redraw speed: a keypress redraws the whole screen, so one frame of a 2,000-package tree with a
//! 500-entry channel in the graph pane must fit in a 60 Hz frame (16 ms).

#[path = "../crates/fbc-core/benches/common/mod.rs"]
mod common;

use std::fmt::Write as _;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::{Progress, load};
use fbc_edit::tui::app::{Action, Model, update};
use fbc_edit::tui::input;
use fbc_edit::tui::keymap::Keymap;
use fbc_edit::tui::view::{Theme, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A key as the runtime feeds it: resolved in the keymap, then given to `update`.
fn press(m: &mut Model, ev: KeyEvent) {
    let action = input::action(m, &ev);
    update(m, action);
}

fn catalog(dir: &std::path::Path) {
    let mut y = String::new();
    // Package 0000 has a 500-entry channel; the other 1,999 have two entries each.
    for p in 0..2000 {
        let n = if p == 0 { 500 } else { 2 };
        let _ = write!(
            y,
            "---\nschema: olm.package\nname: pkg-{p:04}\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: pkg-{p:04}\nname: stable\nentries:\n"
        );
        for i in 0..n {
            let _ = writeln!(y, "- name: pkg-{p:04}.v1.{i}.0");
            if i > 0 {
                let _ = writeln!(y, "  replaces: pkg-{p:04}.v1.{}.0", i - 1);
            }
            if i % 10 == 0 && i >= 3 {
                let _ = writeln!(y, "  skips: [pkg-{p:04}.v1.{}.0]", i - 2);
            }
        }
        for i in 0..n {
            let _ = write!(
                y,
                "---\nschema: olm.bundle\npackage: pkg-{p:04}\nname: pkg-{p:04}.v1.{i}.0\nimage: quay.io/demo/pkg:v1.{i}.0\nproperties:\n- type: olm.package\n  value: {{packageName: pkg-{p:04}, version: 1.{i}.0}}\n"
            );
        }
    }
    std::fs::write(dir.join("catalog.yaml"), y).unwrap();
}

/// The model with the catalog in `dir` loaded.
fn loaded(dir: &std::path::Path) -> Model {
    let mut m = Model::new(
        dir.to_path_buf(),
        Keymap::default(),
        Arc::new(Progress::default()),
    );
    update(&mut m, fbc_edit::tui::effects::load(dir, None));
    m
}

fn bench_draw(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let mut m = loaded(tmp.path());
    // Open the big package and its channel so the graph pane shows 500 entries.
    for code in [
        KeyCode::Char('l'),
        KeyCode::Char('j'),
        KeyCode::Char('l'),
        KeyCode::Char('j'),
    ] {
        press(&mut m, KeyEvent::new(code, KeyModifiers::NONE));
    }
    assert_eq!(
        m.loaded()
            .unwrap()
            .graph
            .as_ref()
            .unwrap()
            .0
            .graph
            .node_count(),
        500
    );
    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    update(
        &mut m,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    c.bench_function("frame/2000-packages-500-entry-graph", |b| {
        b.iter(|| {
            terminal.draw(|f| view(&m, f, &theme)).unwrap();
        })
    });
    c.bench_function("keypress+frame/down", |b| {
        b.iter(|| {
            press(
                &mut m,
                KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
            );
            press(
                &mut m,
                KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE),
            );
            terminal.draw(|f| view(&m, f, &theme)).unwrap();
        })
    });
}

/// The filter applying while it is typed on the 2,000-package catalog: `/`, three characters (each
/// narrows the tree), then Esc (the tree as it was), with a frame after every key.
fn bench_filter(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let mut m = loaded(tmp.path());
    update(
        &mut m,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    let mut group = c.benchmark_group("filter-while-typing/2000-packages");
    group.bench_function("/, 3 characters (a frame after each), Esc", |b| {
        b.iter(|| {
            press(&mut m, key('/'));
            for ch in ['1', '9', '9'] {
                press(&mut m, key(ch));
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
            }
            assert!(m.loaded().unwrap().matches.len() < 100);
            press(&mut m, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            assert!(m.loaded().unwrap().filter.is_none());
        })
    });
    group.bench_function(
        "/, 1 character (the whole catalog matches), frame, Esc",
        |b| {
            b.iter(|| {
                press(&mut m, key('/'));
                press(&mut m, key('1'));
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
                press(&mut m, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            })
        },
    );
    group.finish();
}

/// An edit from the TUI on a 300-bundle package: apply, re-check the package, redraw; then undo,
/// re-check, redraw (so every iteration leaves the catalog as it was).
fn bench_edit(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let mut y = String::from(
        "schema: olm.package\nname: big\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: big\nname: stable\nentries:\n",
    );
    for i in 0..300 {
        let _ = writeln!(y, "- name: big.v1.{i}.0");
        if i > 0 {
            let _ = writeln!(y, "  replaces: big.v1.{}.0", i - 1);
        }
    }
    for i in 0..300 {
        let _ = write!(
            y,
            "---\nschema: olm.bundle\npackage: big\nname: big.v1.{i}.0\nimage: quay.io/demo/big:v1.{i}.0\nproperties:\n- type: olm.package\n  value: {{packageName: big, version: 1.{i}.0}}\n- type: olm.csv.metadata\n  value: {{displayName: Big}}\n"
        );
    }
    std::fs::write(tmp.path().join("catalog.yaml"), y).unwrap();
    let mut m = loaded(tmp.path());
    for code in [
        KeyCode::Char('l'),
        KeyCode::Char('j'),
        KeyCode::Char('l'),
        KeyCode::Char('j'),
    ] {
        press(&mut m, KeyEvent::new(code, KeyModifiers::NONE));
    }
    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    update(
        &mut m,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    let edit = fbc_core::edit::Edit::SetSkipRange {
        package: "big".into(),
        channel: "stable".into(),
        entry: "big.v1.299.0".into(),
        range: Some(">=1.0.0 <1.299.0".into()),
    };
    c.bench_function(
        "edit+revalidate+frame/300-bundle-package (apply and undo)",
        |b| {
            b.iter(|| {
                m.apply_edit(edit.clone()).unwrap();
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
                m.undo().unwrap();
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
            })
        },
    );
}

/// The same edit on generated catalogs of different sizes (`examples/gen_catalog`, directories listed
/// in `FBC_BENCH_TUI_CATALOGS`, comma-separated): an edit redraws only what it touched, so its cost
/// must not grow with the number of packages. The middle package is opened, its stable head gets a
/// new skipRange, the frame is drawn; then undo and draw again.
fn bench_edit_generated(c: &mut Criterion) {
    for dir in common::env_dirs("FBC_BENCH_TUI_CATALOGS") {
        let dir = dir.as_path();
        let catalog = load(dir).unwrap();
        let names = catalog.index().package_names().to_vec();
        let package = names[names.len() / 2].clone();
        let mut m = Model::new(
            dir.to_path_buf(),
            Keymap::default(),
            Arc::new(Progress::default()),
        );
        update(
            &mut m,
            Action::Loaded(Ok(Box::new(fbc_core::workspace::Workspace::open(catalog)))),
        );
        // Down to the package, open it and its stable channel, select the head.
        for _ in 0..names.len() / 2 {
            press(
                &mut m,
                KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
            );
        }
        for code in ['l', 'j', 'l', 'j'] {
            press(
                &mut m,
                KeyEvent::new(KeyCode::Char(code), KeyModifiers::NONE),
            );
        }
        let selected = m.loaded().unwrap().selected().to_vec();
        assert_eq!(selected[0], package);
        let edit = fbc_core::edit::Edit::SetSkipRange {
            package: package.clone(),
            channel: selected[1].clone(),
            entry: selected[2].clone(),
            range: Some(">=0.1.0 <4.0.0".into()),
        };
        let theme = Theme::dark();
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
        update(
            &mut m,
            Action::Resize {
                width: 160,
                height: 48,
            },
        );
        c.bench_function(
            &format!(
                "edit+revalidate+frame/{}-packages (apply and undo)",
                names.len()
            ),
            |b| {
                b.iter(|| {
                    m.apply_edit(edit.clone()).unwrap();
                    terminal.draw(|f| view(&m, f, &theme)).unwrap();
                    m.undo().unwrap();
                    terminal.draw(|f| view(&m, f, &theme)).unwrap();
                })
            },
        );
        // Freeing a big catalog takes longer than the benchmark; the process ends soon.
        std::mem::forget(m);
    }
}

/// A package whose icon is one line of 198,298 base64 characters beside its `defaultChannel`, as
/// cloud-native-postgresql's in certified-operators v4.18, with 300 bundles after it.
fn big_icon_catalog(dir: &std::path::Path) {
    let mut y = format!(
        "---\ndefaultChannel: stable\nicon:\n  base64data: {}\n  mediatype: image/svg+xml\nname: big\nschema: olm.package\n---\nentries:\n",
        "PD94bWwg".repeat(198_298 / 8)
    );
    for i in 0..300 {
        let _ = writeln!(y, "- name: big.v1.{i}.0");
    }
    y.push_str("name: stable\npackage: big\nschema: olm.channel\n---\nentries:\n- name: big.v1.299.0\nname: fast\npackage: big\nschema: olm.channel\n");
    for i in 0..300 {
        let _ = write!(
            y,
            "---\nimage: quay.io/demo/big:v1.{i}.0\nname: big.v1.{i}.0\npackage: big\nproperties:\n- type: olm.package\n  value:\n    packageName: big\n    version: 1.{i}.0\nschema: olm.bundle\n"
        );
    }
    std::fs::create_dir_all(dir.join("big")).unwrap();
    std::fs::write(dir.join("big/catalog.yaml"), y).unwrap();
}

/// The write preview after setting the default channel of a package whose icon is one 198 KB line
/// (a generated one; with `FBC_BENCH_REAL`, also cloud-native-postgresql in the full certified
/// v4.18 catalog): opening it (the diff, as the worker makes it, read into the viewer), one frame
/// at 160×45, a key and a frame, and the whole line opened and drawn at its end.
fn bench_preview(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    big_icon_catalog(tmp.path());
    let mut cases = vec![(
        "generated-198KB-icon".to_string(),
        tmp.path().to_path_buf(),
        "big",
        "fast",
    )];
    for (name, dir) in common::full_real_catalogs() {
        if name.starts_with("certified") {
            cases.push((name, dir, "cloud-native-postgresql", "stable"));
        }
    }
    let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
    for (name, dir, package, channel) in cases {
        let mut m = Model::new(
            dir.clone(),
            Keymap::default(),
            Arc::new(Progress::default()),
        );
        update(&mut m, fbc_edit::tui::effects::load(&dir, None));
        update(
            &mut m,
            Action::Resize {
                width: 160,
                height: 45,
            },
        );
        m.apply_edit(fbc_core::edit::Edit::SetDefaultChannel {
            package: package.into(),
            channel: channel.into(),
        })
        .unwrap();
        let theme = Theme::dark();
        let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
        let mut group = c.benchmark_group(format!("write-preview/{name}"));
        group.bench_function("open (diff + read into the viewer)", |b| {
            b.iter(|| {
                m.dialog = None;
                fbc_edit::tui::effects::press(&mut m, key('w'));
                assert!(m.dialog.is_some());
            })
        });
        group.bench_function("frame", |b| {
            b.iter(|| {
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
            })
        });
        group.bench_function("key+frame (j, k)", |b| {
            b.iter(|| {
                press(&mut m, key('j'));
                press(&mut m, key('k'));
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
            })
        });
        // The icon line: the first match of its key.
        for c in "/base64data".chars() {
            press(&mut m, key(c));
        }
        press(&mut m, KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        group.bench_function("whole line: open, to its end, frame", |b| {
            b.iter(|| {
                press(&mut m, key('v'));
                press(&mut m, key('G'));
                terminal.draw(|f| view(&m, f, &theme)).unwrap();
                press(&mut m, key('v'));
            })
        });
        group.finish();
        std::mem::forget(m);
    }
}

/// An edit of five templates at once (the rabbitmq operator's v4.17 to v4.21, 12 bundles each):
/// each template re-rendered and re-checked, then undone.
fn bench_template_edit(c: &mut Criterion) {
    use fbc_core::edit::Edit;
    use fbc_core::template::Sources;
    use fbc_core::template::memo::Memo;
    use fbc_core::workspace::templates::TemplateSet;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/release");
    let dir = root.join("operators/rabbitmq-messaging-topology-operator/catalog-templates");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (sources, _) = Sources::for_template(&files[0], &[], Vec::new(), None).unwrap();
    let mut set = TemplateSet::open(&files, Memo::new(sources)).unwrap();
    let edit = Edit::SetSkipRange {
        package: "rabbitmq-messaging-topology-operator".into(),
        channel: "stable".into(),
        entry: "rabbitmq-messaging-topology-operator.v1.19.3".into(),
        range: Some(">=1.18.0 <1.19.3".into()),
    };
    c.bench_function("template-edit/5-templates apply+undo", |b| {
        b.iter(|| {
            set.apply(edit.clone()).unwrap();
            set.undo().unwrap();
        })
    });
}

/// An edit and its undo on a real catalog, each re-checking a package whose bundles carry
/// manifests left on disk, with a frame after each: loaded as the runtime loads it (payloads
/// checked while read, so a re-check reads nothing), and as it was loaded before (each re-check
/// reading the package's manifests from disk). The testdata slice of certified-operators v4.18,
/// and with `FBC_BENCH_REAL` the full catalog.
fn bench_edit_real(c: &mut Criterion) {
    let mut cases = vec![(
        "certified-v4.18-slice".to_string(),
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/real/redhat-openshift-ecosystem__certified-operators__catalogs-v4.18"),
    )];
    cases.extend(
        common::full_real_catalogs()
            .into_iter()
            .filter(|(name, _)| name.starts_with("certified")),
    );
    let theme = Theme::dark();
    for (name, dir) in cases {
        let mut group = c.benchmark_group(format!("edit-real/{name}"));
        for how in ["payloads checked at load", "payloads read at each check"] {
            let mut m = Model::new(
                dir.clone(),
                Keymap::default(),
                Arc::new(Progress::default()),
            );
            let loaded = if how.starts_with("payloads checked") {
                fbc_edit::tui::effects::load(&dir, None)
            } else {
                let ws = fbc_core::workspace::Workspace::open(load(&dir).unwrap());
                Action::Loaded(Ok(Box::new(ws)))
            };
            update(&mut m, loaded);
            let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
            let edit = fbc_core::edit::Edit::Deprecate {
                package: "eda-k8s-operator".into(),
                target: fbc_core::edit::Target::Package,
                message: "use another operator".into(),
            };
            group.bench_function(format!("deprecate+frame, undo+frame ({how})"), |b| {
                b.iter(|| {
                    m.apply_edit(edit.clone()).unwrap();
                    terminal.draw(|f| view(&m, f, &theme)).unwrap();
                    m.undo().unwrap();
                    terminal.draw(|f| view(&m, f, &theme)).unwrap();
                })
            });
            std::mem::forget(m);
        }
        group.finish();
    }
}

criterion_group!(
    benches,
    bench_edit_real,
    bench_draw,
    bench_filter,
    bench_edit,
    bench_edit_generated,
    bench_preview,
    bench_template_edit
);
criterion_main!(benches);

//! Guided edits: what they change in the files, what they refuse, and that undo restores every byte.

use crate::common;
use common::{copy_dir, real};

use std::path::Path;

use assert_cmd::Command;
use fbc_core::catalog::{Catalog, Severity, load};
use fbc_core::edit::{Edit, Target, Undo};
use fbc_core::validate;
use proptest::prelude::*;

fn copy_of(rel: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), tmp.path());
    tmp
}

fn errors(c: &Catalog) -> Vec<String> {
    validate::validate(c)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

fn s(v: &str) -> String {
    v.to_string()
}

#[test]
fn promote_adds_only_the_new_entry_lines() {
    let tmp = copy_of("assets/demo-catalog");
    let mut c = load(tmp.path()).unwrap();
    Edit::Promote {
        package: s("cache-operator"),
        bundle: s("cache-operator.v1.4.0"),
        channel: s("stable"),
        replaces: None,
        skips: vec![],
        skip_range: Some(s(">=1.0.0 <1.4.0")),
    }
    .apply(&mut c)
    .unwrap();
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
    let diff = c.preview().unwrap();
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(
        changed,
        [
            "+  - name: cache-operator.v1.4.0",
            "+    replaces: cache-operator.v1.3.0",
            "+    skipRange: '>=1.0.0 <1.4.0'",
        ]
    );
}

/// Edits on real catalogs: each result validates, and its diff is the snapshot.
#[test]
fn edits_on_real_catalogs_stay_valid() {
    let desched = real("openshift__cluster-kube-descheduler-operator__fbc-v4.12-catalog");
    let pkg = s("cluster-kube-descheduler-operator");
    let cases: Vec<(&str, Edit)> = vec![
        (
            "descheduler_skip_range",
            Edit::SetSkipRange {
                package: pkg.clone(),
                channel: s("stable"),
                entry: s("clusterkubedescheduleroperator.v4.12.1"),
                range: Some(s(">=4.10.0 <4.12.1")),
            },
        ),
        (
            "descheduler_default_channel",
            Edit::SetDefaultChannel {
                package: pkg.clone(),
                channel: s("4.12"),
            },
        ),
        (
            "descheduler_deprecate_channel",
            Edit::Deprecate {
                package: pkg.clone(),
                target: Target::Channel(s("4.12")),
                message: s("Use the stable channel."),
            },
        ),
        (
            "descheduler_remove_entry",
            Edit::RemoveEntry {
                package: pkg.clone(),
                channel: s("4.12"),
                entry: s("clusterkubedescheduleroperator.4.12.0-202503181728"),
            },
        ),
    ];
    for (name, edit) in cases {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&desched, tmp.path());
        let mut c = load(tmp.path()).unwrap();
        assert!(errors(&c).is_empty());
        edit.apply(&mut c).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(errors(&c).is_empty(), "{name}: {:#?}", errors(&c));
        insta::assert_snapshot!(name, c.preview().unwrap());
        // Saved and loaded again, the catalog is still valid.
        c.save().unwrap();
        assert!(errors(&load(tmp.path()).unwrap()).is_empty(), "{name}");
    }
}

/// The other edits, on opm's own declarative-config test index (one YAML file).
#[test]
fn more_edits_on_a_real_yaml_index_stay_valid() {
    let index = real("operator-framework__operator-registry__index-declcfgs-latest");
    let foo = s("foo");
    let cases: Vec<(&str, Vec<Edit>)> = vec![
        (
            "declcfgs_create_channel_and_promote",
            vec![
                Edit::CreateChannel {
                    package: foo.clone(),
                    channel: s("stable"),
                    bundle: s("foo.v0.2.0"),
                },
                Edit::Promote {
                    package: foo.clone(),
                    bundle: s("foo.v0.3.1"),
                    channel: s("stable"),
                    replaces: None,
                    skips: vec![],
                    skip_range: Some(s(">=0.2.0 <0.3.1")),
                },
            ],
        ),
        (
            "declcfgs_add_and_remove_skips",
            vec![
                Edit::AddSkips {
                    package: foo.clone(),
                    channel: s("beta"),
                    entry: s("foo.v0.3.1"),
                    skips: vec![s("foo.v0.1.0")],
                },
                Edit::RemoveSkips {
                    package: foo.clone(),
                    channel: s("beta"),
                    entry: s("foo.v0.2.0"),
                    skips: vec![s("foo.v0.1.1")],
                },
            ],
        ),
        (
            "declcfgs_set_replaces",
            vec![Edit::SetReplaces {
                package: foo.clone(),
                channel: s("beta"),
                entry: s("foo.v0.3.0"),
                replaces: Some(s("foo.v0.1.0")),
            }],
        ),
        (
            "declcfgs_deprecate_then_undeprecate_keeps_the_file",
            vec![
                Edit::Deprecate {
                    package: s("bar"),
                    target: Target::Package,
                    message: s("bar is replaced by baz"),
                },
                Edit::Undeprecate {
                    package: s("bar"),
                    target: Target::Package,
                },
            ],
        ),
        (
            "declcfgs_delete_channel",
            vec![
                Edit::CreateChannel {
                    package: foo.clone(),
                    channel: s("old"),
                    bundle: s("foo.v0.1.0"),
                },
                Edit::DeleteChannel {
                    package: foo.clone(),
                    channel: s("old"),
                },
            ],
        ),
    ];
    for (name, edits) in cases {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&index, tmp.path());
        let mut c = load(tmp.path()).unwrap();
        for e in edits {
            e.apply(&mut c)
                .unwrap_or_else(|err| panic!("{name}: {err}"));
        }
        assert!(errors(&c).is_empty(), "{name}: {:#?}", errors(&c));
        insta::assert_snapshot!(name, c.preview().unwrap());
    }
}

#[test]
fn preconditions_refuse_in_plain_words() {
    let tmp = copy_of("assets/demo-catalog");
    let mut c = load(tmp.path()).unwrap();
    let refuse = |c: &mut Catalog, e: Edit| e.apply(c).unwrap_err().to_string();
    assert_eq!(
        refuse(
            &mut c,
            Edit::Promote {
                package: s("cache-operator"),
                bundle: s("cache-operator.v1.1.0"),
                channel: s("fast"),
                replaces: None,
                skips: vec![],
                skip_range: None,
            }
        ),
        "cache-operator.v1.1.0 (1.1.0) is not newer than the head of fast, cache-operator.v1.4.0 (1.4.0)"
    );
    assert!(
        refuse(
            &mut c,
            Edit::DeleteChannel {
                package: s("cache-operator"),
                channel: s("stable")
            }
        )
        .contains("is the default channel")
    );
    assert!(
        refuse(
            &mut c,
            Edit::RemoveEntry {
                package: s("cache-operator"),
                channel: s("candidate"),
                entry: s("nope")
            }
        )
        .contains("is not an entry of candidate")
    );
    assert!(
        refuse(
            &mut c,
            Edit::SetSkipRange {
                package: s("cache-operator"),
                channel: s("stable"),
                entry: s("cache-operator.v1.3.0"),
                range: Some(s("~1.2.0")),
            }
        )
        .contains("is not a valid range")
    );
    // Nothing changed.
    assert_eq!(c.preview().unwrap(), "");
}

/// Edits that are plausible on the demo catalog (some fail their preconditions, which is fine).
fn demo_edit() -> impl Strategy<Value = Edit> {
    let pkgs = prop::sample::select(vec!["cache-operator", "backup-operator", "metrics-gateway"]);
    let channels = prop::sample::select(vec![
        "stable",
        "fast",
        "candidate",
        "stable-1.0",
        "alpha",
        "stable-2.1",
        "extra",
    ]);
    let versions = prop::sample::select(vec![
        "1.0.0", "1.1.0", "1.2.0", "1.2.1", "1.3.0", "1.4.0", "2.0.0", "2.1.0", "2.1.1", "2.2.0",
        "0.9.0", "1.0.1",
    ]);
    (0u8..10, pkgs, channels, versions.clone(), versions).prop_map(|(kind, p, ch, v1, v2)| {
        let package = s(p);
        let channel = s(ch);
        let e1 = format!("{p}.v{v1}");
        let e2 = format!("{p}.v{v2}");
        match kind {
            0 => Edit::Promote {
                package,
                bundle: e1,
                channel,
                replaces: None,
                skips: vec![],
                skip_range: None,
            },
            1 => Edit::SetDefaultChannel { package, channel },
            2 => Edit::AddSkips {
                package,
                channel,
                entry: e1,
                skips: vec![e2],
            },
            3 => Edit::RemoveSkips {
                package,
                channel,
                entry: e1,
                skips: vec![e2],
            },
            4 => Edit::SetSkipRange {
                package,
                channel,
                entry: e1,
                range: Some(format!(">=0.1.0 <{v2}")),
            },
            5 => Edit::SetReplaces {
                package,
                channel,
                entry: e1,
                replaces: Some(e2),
            },
            6 => Edit::RemoveEntry {
                package,
                channel,
                entry: e1,
            },
            7 => Edit::Deprecate {
                package,
                target: Target::Bundle(e1),
                message: s("old"),
            },
            8 => Edit::Undeprecate {
                package,
                target: Target::Bundle(e1),
            },
            _ => Edit::CreateChannel {
                package,
                channel: format!("{ch}-new"),
                bundle: e1,
            },
        }
    })
}

/// Every object, in a fixed order (files may be walked in another order after new ones appear).
fn model(c: &Catalog) -> Vec<String> {
    let mut all: Vec<String> = c
        .live_blobs()
        .map(|(_, b)| c.to_json(&b.value).unwrap().to_string())
        .collect();
    all.sort();
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn undo_restores_every_byte_and_save_reload_keeps_the_model(edits in prop::collection::vec(demo_edit(), 1..8)) {
        let tmp = copy_of("assets/demo-catalog");
        let mut c = load(tmp.path()).unwrap();
        let mut undos: Vec<Undo> = Vec::new();
        for e in &edits {
            if let Ok(u) = e.apply(&mut c) {
                undos.push(u);
            }
            // The index is kept up to date package by package: it must be the one a full build gives.
            prop_assert_eq!(c.index(), &fbc_core::catalog::Index::build(&c));
        }
        let after = model(&c);
        let mut reloaded_model = None;
        if !undos.is_empty() {
            // Save into a second copy and reload: the same model.
            let other = copy_of("assets/demo-catalog");
            let mut c2 = load(other.path()).unwrap();
            for e in &edits {
                let _ = e.apply(&mut c2);
            }
            c2.save().unwrap();
            reloaded_model = Some(model(&load(other.path()).unwrap()));
        }
        if let Some(m) = reloaded_model {
            prop_assert_eq!(m, after);
        }
        for u in undos.into_iter().rev() {
            u.apply(&mut c);
            prop_assert_eq!(c.index(), &fbc_core::catalog::Index::build(&c));
        }
        prop_assert_eq!(c.preview().unwrap(), "");
        prop_assert!(c.pending_changes().unwrap().is_empty());
    }
}

fn fbc(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cli_dry_run_refusal_and_force() {
    let tmp = copy_of("assets/demo-catalog");
    let dir = tmp.path().to_str().unwrap();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let before = std::fs::read(&file).unwrap();

    let (code, out, _) = fbc(&[
        "edit",
        dir,
        "--dry-run",
        "promote",
        "-p",
        "cache-operator",
        "-b",
        "cache-operator.v1.4.0",
        "-c",
        "stable",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("+  - name: cache-operator.v1.4.0"), "{out}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "a dry run writes nothing"
    );

    // Deleting a channel that holds the only copy of a bundle strands it: refused, unless --force.
    let (code, _, err) = fbc(&[
        "edit",
        dir,
        "delete-channel",
        "-p",
        "cache-operator",
        "-c",
        "candidate",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("would leave the catalog invalid"), "{err}");
    assert!(err.contains("FBC028"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let (code, _, _) = fbc(&[
        "edit",
        dir,
        "--force",
        "delete-channel",
        "-p",
        "cache-operator",
        "-c",
        "candidate",
    ]);
    assert_eq!(code, 0);
    assert_ne!(std::fs::read(&file).unwrap(), before);

    // A failed precondition: exit 1 with the reason; a usage error or an unknown name: exit 2.
    let (code, _, err) = fbc(&[
        "edit",
        dir,
        "set-default-channel",
        "-p",
        "cache-operator",
        "-c",
        "nope",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("has no channel \"nope\""), "{err}");
    let (code, _, _) = fbc(&[
        "edit",
        dir,
        "set-skip-range",
        "-p",
        "x",
        "-c",
        "y",
        "-e",
        "z",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn a_save_interrupted_before_the_rename_leaves_the_original_intact() {
    let tmp = copy_of("assets/demo-catalog");
    let dir = tmp.path().to_str().unwrap();
    let file = tmp.path().join("cache-operator/catalog.yaml");
    let before = std::fs::read(&file).unwrap();
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .env("FBC_EDIT_FAULT", "rename:0")
        .args([
            "edit",
            dir,
            "set-default-channel",
            "-p",
            "cache-operator",
            "-c",
            "fast",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a write that fails is an I/O error"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("failure injected at step rename"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path().join("cache-operator"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".fbc-edit-"))
        .collect();
    assert!(leftovers.is_empty(), "the temporary file is cleaned up");
    assert!(errors(&load(tmp.path()).unwrap()).is_empty());
}

#[test]
fn remove_entry_drops_a_skips_list_it_empties() {
    let tmp = copy_of("assets/demo-catalog");
    let mut c = load(tmp.path()).unwrap();
    Edit::RemoveEntry {
        package: s("backup-operator"),
        channel: s("stable"),
        entry: s("backup-operator.v2.1.1"),
    }
    .apply(&mut c)
    .unwrap();
    c.save().unwrap();
    let text =
        std::fs::read_to_string(tmp.path().join("backup-operator/channels/stable.yaml")).unwrap();
    assert!(!text.contains("skips:"), "{text}");
    assert!(text.contains("skipRange: '>=2.0.0 <2.2.0'"), "{text}");
}

#[test]
fn check_refuses_what_apply_refuses_and_changes_nothing() {
    let tmp = copy_of("assets/demo-catalog");
    let mut c = load(tmp.path()).unwrap();
    let promote = |bundle: &str| Edit::Promote {
        package: s("cache-operator"),
        bundle: s(bundle),
        channel: s("fast"),
        replaces: None,
        skips: Vec::new(),
        skip_range: None,
    };
    let edits = [
        promote("cache-operator.v1.2.1"),
        promote("cache-operator.v1.5.0-rc.1"),
        Edit::Deprecate {
            package: s("cache-operator"),
            target: Target::Channel(s("stable-1.0")),
            message: s("use stable"),
        },
        Edit::DeleteChannel {
            package: s("cache-operator"),
            channel: s("stable"),
        },
        Edit::RemoveSkips {
            package: s("cache-operator"),
            channel: s("stable"),
            entry: s("cache-operator.v1.3.0"),
            skips: Vec::new(),
        },
        Edit::RemoveBundle {
            package: s("cache-operator"),
            bundle: s("cache-operator.v1.1.0"),
            relink: false,
        },
        Edit::RemoveBundle {
            package: s("cache-operator"),
            bundle: s("cache-operator.v1.1.0"),
            relink: true,
        },
    ];
    for edit in edits {
        let checked = edit.check(&c);
        assert!(c.dirty_files().is_empty(), "{edit:?} changed the catalog");
        match edit.apply(&mut c) {
            Ok(undo) => {
                assert_eq!(checked, Ok(()), "{edit:?}");
                undo.apply(&mut c);
            }
            Err(e) => assert_eq!(checked, Err(e), "{edit:?}"),
        }
    }
}

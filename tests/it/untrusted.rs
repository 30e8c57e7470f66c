//! Input written by someone else (a pull request's catalog, a bundle PR's release config, a config
//! file): names in it never lead a write outside the repository, a FIFO or device never hangs a
//! command, a huge sparse file costs no memory, and hostile YAML costs seconds at most.

use crate::common::{self, Ran, mkfifo, run_within};

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use fbc_core::edit::Edit;
use fbc_core::template::Sources;
use fbc_core::template::edit::TemplateEdit;
use fbc_core::template::memo::Memo;
use fbc_core::workspace::templates::{TemplateSet, write_and_reread};

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn fbc_edit() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT").env_remove("FBC_EDIT_LIMITS");
    c
}

const HANG: Duration = Duration::from_secs(20);

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
    let catalog = fbc_core::catalog::load(dir.path()).unwrap();
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

#[test]
fn a_sparse_file_over_4_gib_is_refused_before_any_buffer_is_sized() {
    let dir = common::demo_copy();
    let huge = std::fs::File::create(dir.path().join("huge.json")).unwrap();
    huge.set_len((4 << 30) + 1).unwrap();
    let mut cmd = crate::bounded::fbc_edit();
    cmd.arg("list")
        .arg(dir.path())
        .env_remove("FBC_EDIT_LIMITS");
    let run = crate::bounded::run(cmd, Duration::from_secs(120));
    run.expect(0, 60, 300);
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with("huge.json") && l.contains("larger than 4 GiB")),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("cache-operator"),
        "the rest loads: {}",
        run.stdout
    );
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

/// Well over what the work takes, well under what the quadratic or unbounded reads took.
const SLOW: Duration = Duration::from_secs(10);

/// Only keeps a run from hanging the suite: no test here measures with it.
const NO_HANG: Duration = Duration::from_secs(600);

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const RABBIT_IMAGE: &str =
    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";
const ENTRY: &str = "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n";

/// A copy of testdata/release as `repo/`, with room beside it for files outside the repository.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&local("testdata/release"), &root);
    (tmp, root)
}

/// Takes `lines` out of a file (they must be there).
fn strip(file: &Path, lines: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(lines), "{} lacks {lines:?}", file.display());
    std::fs::write(file, text.replacen(lines, "", 1)).unwrap();
}

/// Every file under `dir` with its bytes, sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

/// Runs the release of 1.19.3 with this `release-config.yaml` (and `ci.yaml`, when given).
fn release(root: &Path, config: &str, ci: Option<&str>) -> Ran {
    release_within(root, config, ci, "")
}

/// [`release`] with `FBC_EDIT_LIMITS` set to `limits` (budgets raised for files trusted).
fn release_within(root: &Path, config: &str, ci: Option<&str>, limits: &str) -> Ran {
    let op = root.join(RABBIT);
    std::fs::write(op.join("1.19.3/release-config.yaml"), config).unwrap();
    if let Some(ci) = ci {
        std::fs::write(op.join("ci.yaml"), ci).unwrap();
    }
    let mut cmd = fbc_edit();
    if !limits.is_empty() {
        cmd.env("FBC_EDIT_LIMITS", limits);
    }
    run_within(
        SLOW,
        cmd.current_dir(root)
            .args(["edit", RABBIT, "release", "--from"])
            .arg(format!("{RABBIT}/1.19.3"))
            .args(["--image", RABBIT_IMAGE]),
    )
}

/// A `ci.yaml` mapping v4.20.yaml, then `name` to `catalog` (line 7: the second template name;
/// line 8: its catalog names).
fn ci_mapping(name: &str, catalog: &str) -> String {
    format!(
        "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: v4.20.yaml\n      catalog_names: [\"v4.20\"]\n      type: olm.template.basic\n    - template_name: {name}\n      catalog_names: [\"{catalog}\"]\n      type: olm.template.basic\n"
    )
}

fn release_config(name: &str) -> String {
    format!(
        "catalog_templates:\n- template_name: {name}\n  channels: [stable]\n  replaces: rabbitmq-messaging-topology-operator.v1.19.2\n"
    )
}

#[test]
fn a_release_config_naming_a_template_outside_the_repository_writes_nothing() {
    let (tmp, root) = repo();
    let outside = tmp.path().join("outside.yaml");
    let abs = outside.display().to_string();
    let config = format!("{RABBIT}/1.19.3/release-config.yaml");
    let ci = format!("{RABBIT}/ci.yaml");
    let before = files(&root);
    let cases = [
        // The name in both files, as the mapping must hold it: the release config is read first.
        (
            release_config(&abs),
            ci_mapping(&abs, "v4.21"),
            format!("{config}:2: template_name \"{abs}\" is an absolute path"),
        ),
        (
            release_config("../../../../outside.yaml"),
            ci_mapping("../../../../outside.yaml", "v4.21"),
            format!(
                "{config}:2: template_name \"../../../../outside.yaml\" climbs out of its directory with `..`"
            ),
        ),
        // Only the mapping is bad: it is refused though this release does not use it.
        (
            release_config("v4.20.yaml"),
            ci_mapping(&abs, "v4.21"),
            format!("{ci}:7: template_name \"{abs}\" is an absolute path"),
        ),
        (
            release_config("v4.20.yaml"),
            ci_mapping("v4.21.yaml", "../../outside"),
            format!("{ci}:8: catalog name \"../../outside\" climbs out of its directory with `..`"),
        ),
    ];
    for (config, ci, want) in &cases {
        let ran = release(&root, config, Some(ci));
        assert_eq!(ran.code, 1, "{config}{ci}{}", ran.all());
        assert!(ran.stderr.contains(want), "want {want}\n{}", ran.stderr);
        assert!(ran.stderr.contains("nothing written"), "{}", ran.stderr);
        assert!(!outside.exists(), "{} was created", outside.display());
        assert!(!tmp.path().join("outside").exists());
    }
    // A file that is there is not amended either.
    let template = "schema: olm.template.basic\nentries: []\n";
    std::fs::write(&outside, template).unwrap();
    let ran = release(
        &root,
        &release_config(&abs),
        Some(&ci_mapping(&abs, "v4.21")),
    );
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), template);
    // Inside the repository, only the two files the test wrote differ.
    let changed: Vec<PathBuf> = files(&root)
        .into_iter()
        .filter(|f| !before.contains(f))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        changed,
        [
            root.join(RABBIT).join("1.19.3/release-config.yaml"),
            root.join(RABBIT).join("ci.yaml")
        ]
    );
}

/// Moves v4.20.yaml out of the repository (without its 1.19.3 entry, so a release adds it) and
/// leaves a link to it in its place; returns the file outside.
fn template_linked_from_outside(tmp: &Path, root: &Path) -> PathBuf {
    let inside = root.join(RABBIT).join("catalog-templates/v4.20.yaml");
    let outside = tmp.join("elsewhere/v4.20.yaml");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::rename(&inside, &outside).unwrap();
    strip(&outside, ENTRY);
    std::os::unix::fs::symlink(&outside, &inside).unwrap();
    outside
}

#[test]
fn a_release_never_writes_through_a_template_link_leaving_the_repository() {
    let (tmp, root) = repo();
    let outside = template_linked_from_outside(tmp.path(), &root);
    let before = std::fs::read(&outside).unwrap();
    let ran = release(&root, &release_config("v4.20.yaml"), None);
    assert_ne!(ran.code, 0, "{}", ran.all());
    // The link leaves the template's directory: the template is not even read.
    assert!(
        ran.stderr.contains(&format!(
            "catalog-templates/v4.20.yaml: a symbolic link to {}",
            outside.canonicalize().unwrap().display()
        )) && ran.stderr.contains("not read"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        before,
        "written through the link"
    );
    assert!(
        !root
            .join("catalogs/v4.21/rabbitmq-messaging-topology-operator")
            .exists(),
        "nothing written"
    );
}

#[test]
fn a_template_set_never_saves_through_a_link_leaving_the_repository() {
    let (tmp, root) = repo();
    let template = root.join(RABBIT).join("catalog-templates/v4.20.yaml");
    let catalog = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator");
    let (sources, _) = Sources::for_template(&template, &[catalog], Vec::new(), None).unwrap();
    let memo = Memo::new(sources);
    let mut set = TemplateSet::open(std::slice::from_ref(&template), memo.clone()).unwrap();
    // Swapped for a link to the same file outside once opened: the save resolves it and refuses.
    let outside = tmp.path().join("elsewhere/v4.20.yaml");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::rename(&template, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &template).unwrap();
    let before = std::fs::read(&outside).unwrap();
    // Opened through the link, it is not even read.
    let e = match TemplateSet::open(std::slice::from_ref(&template), memo) {
        Ok(_) => panic!("opened through a link leaving its directory"),
        Err(e) => format!("{e:?}"),
    };
    assert!(
        e.contains("a symbolic link to") && e.contains("not read"),
        "{e}"
    );
    assert!(
        set.root().starts_with(root.canonicalize().unwrap()),
        "{}",
        set.root().display()
    );
    set.apply_template(TemplateEdit::Catalog(Edit::SetSkipRange {
        package: "rabbitmq-messaging-topology-operator".into(),
        channel: "stable".into(),
        entry: "rabbitmq-messaging-topology-operator.v1.19.2".into(),
        range: Some(">=1.19.0 <1.19.2".into()),
    }))
    .unwrap();
    let saved = set.plan_save().and_then(|planned| {
        write_and_reread(
            set.root(),
            planned,
            &Default::default(),
            set.dirty_templates(),
        )
    });
    let e = match saved {
        Ok(_) => panic!("the save went through"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("is outside"), "{e}");
    assert_eq!(
        std::fs::read(&outside).unwrap(),
        before,
        "written through the link"
    );
}

#[test]
fn a_fifo_template_or_release_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("template.yaml");
    mkfifo(&fifo);
    let ran = run_within(HANG, fbc_edit().args(["template", "render"]).arg(&fifo));
    assert_ne!(ran.code, 0);
    assert!(
        ran.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        ran.stderr
    );

    let (_tmp, root) = repo();
    let config = root.join(RABBIT).join("1.19.3/release-config.yaml");
    std::fs::remove_file(&config).unwrap();
    mkfifo(&config);
    let ran = run_within(
        HANG,
        fbc_edit()
            .current_dir(&root)
            .args(["edit", RABBIT, "release", "--from"])
            .arg(format!("{RABBIT}/1.19.3"))
            .args(["--image", RABBIT_IMAGE]),
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("release-config.yaml")
            && ran.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        ran.stderr
    );
    std::fs::remove_file(&config).unwrap();
    let ci = root.join(RABBIT).join("ci.yaml");
    std::fs::remove_file(&ci).unwrap();
    mkfifo(&ci);
    let ran = run_within(
        HANG,
        fbc_edit()
            .current_dir(&root)
            .args(["template", "render-all", "--check", RABBIT]),
    );
    assert_ne!(ran.code, 0);
    assert!(
        ran.stderr.contains("ci.yaml") && ran.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_fifo_where_a_rendered_catalog_goes_is_refused() {
    let (_tmp, root) = repo();
    // v4.21 is mapped but not committed; v4.20 still holds the bundles the templates name.
    let catalog = root.join("catalogs/v4.21/rabbitmq-messaging-topology-operator/catalog.yaml");
    std::fs::create_dir_all(catalog.parent().unwrap()).unwrap();
    mkfifo(&catalog);
    for extra in [&["--check"][..], &[]] {
        let ran = run_within(
            HANG,
            fbc_edit()
                .current_dir(&root)
                .args(["template", "render-all"])
                .args(extra)
                .arg(RABBIT),
        );
        assert_ne!(ran.code, 0, "{}", ran.all());
        assert!(
            ran.all().contains("not a regular file (a FIFO)"),
            "{}",
            ran.all()
        );
    }
}

/// `n` opening brackets: a flow sequence nested `n` deep, never closed.
fn brackets(n: usize) -> String {
    "[".repeat(n)
}

#[test]
fn deeply_nested_yaml_in_small_files_is_refused_quickly_with_its_line() {
    let (_tmp, root) = repo();
    let config = format!("{RABBIT}/1.19.3/release-config.yaml");
    let ran = release(
        &root,
        &format!("catalog_templates: {}\n", brackets(200_000)),
        None,
    );
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert!(
        ran.stderr.contains(&format!("{config}:1:")) && ran.stderr.contains("nested deeper than"),
        "{}",
        ran.stderr
    );

    let ci = format!("{RABBIT}/ci.yaml");
    std::fs::write(
        root.join(&ci),
        format!("fbc:\n  catalog_mapping: {}\n", brackets(200_000)),
    )
    .unwrap();
    let ran = run_within(
        SLOW,
        fbc_edit()
            .current_dir(&root)
            .args(["template", "render-all", "--check", RABBIT]),
    );
    assert_ne!(ran.code, 0);
    assert!(
        ran.stderr.contains(&format!("{ci}:2:")) && ran.stderr.contains("nested deeper than"),
        "{}",
        ran.stderr
    );

    let cfg = tempfile::tempdir().unwrap();
    let file = cfg.path().join("config.yaml");
    std::fs::write(&file, format!("keys: {}\n", brackets(200_000))).unwrap();
    let ran = run_within(
        SLOW,
        fbc_edit()
            .arg("info")
            .env("FBC_EDIT_CONFIG_DIR", cfg.path()),
    );
    assert_eq!(ran.code, 0);
    assert!(
        ran.stdout
            .contains(&format!("warning: {}:1:", file.display()))
            && ran.stdout.contains("nested deeper than"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("  quit             q/ctrl-c"),
        "{}",
        ran.stdout
    );
}

#[test]
fn an_alias_bomb_in_ci_yaml_is_refused_with_its_line() {
    let (_tmp, root) = repo();
    let mut ci = String::from(
        "fbc:\n  enabled: true\n  x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..9 {
        let refs = vec![format!("*x{}", i - 1); 9].join(", ");
        ci.push_str(&format!("  x{i}: &x{i} [{refs}]\n"));
    }
    ci.push_str("  catalog_mapping: []\n");
    let ran = release(&root, &release_config("v4.20.yaml"), Some(&ci));
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert!(
        ran.stderr.contains(&format!("{RABBIT}/ci.yaml:"))
            && ran.stderr.contains("excessive aliasing"),
        "{}",
        ran.stderr
    );
}

/// Budgets raised as for files the user trusts: the files below are larger than a default
/// `yaml-file` budget allows.
const TRUSTED: &str = "yaml-file=16MiB";

/// `prefix0, prefix1, …` up to `prefix{n - 1}`.
fn many(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

#[test]
fn a_hundred_thousand_channels_or_skips_are_checked_in_linear_time() {
    let (_tmp, root) = repo();
    // 100,000 channels, each once, and 100,000 skips with the first again at the end.
    let mut skips = many("s", 100_000);
    skips.push("s0".into());
    let ran = release_within(
        &root,
        &format!(
            "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [{}]\n  skips: [{}]\n",
            many("c", 100_000).join(", "),
            skips.join(", ")
        ),
        None,
        TRUSTED,
    );
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert!(
        ran.stderr
            .contains("skips must list at least one entry, each once"),
        "{}",
        ran.stderr
    );

    // Two mappings of 100,000 catalogs each, the second naming one of the first again at its end.
    let mut second = many("b", 100_000);
    second.push("a0".into());
    std::fs::write(
        root.join(RABBIT).join("ci.yaml"),
        format!(
            "fbc:\n  enabled: true\n  catalog_mapping:\n    - template_name: v4.20.yaml\n      type: olm.template.basic\n      catalog_names: [{}]\n    - template_name: v4.21.yaml\n      type: olm.template.basic\n      catalog_names: [{}]\n",
            many("a", 100_000).join(", "),
            second.join(", ")
        ),
    )
    .unwrap();
    let ran = run_within(
        SLOW,
        fbc_edit()
            .env("FBC_EDIT_LIMITS", TRUSTED)
            .current_dir(&root)
            .args(["template", "render-all", "--check", RABBIT]),
    );
    assert_ne!(ran.code, 0);
    assert!(
        ran.stderr.contains("catalog a0 is mapped twice"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_release_config_over_the_yaml_budget_is_refused_unread_unless_trusted() {
    let (_tmp, root) = repo();
    // A sparse file of 64 GiB: refused from its size, before a byte of it is read. A read would
    // stop at the budget and could not know the size the message gives.
    let config = root.join(RABBIT).join("1.19.3/release-config.yaml");
    std::fs::File::create(&config)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    // What is proven here is what was read, not how fast: the runs are only kept from hanging.
    let run = |limits: &str| {
        let mut cmd = fbc_edit();
        if !limits.is_empty() {
            cmd.env("FBC_EDIT_LIMITS", limits);
        }
        run_within(
            NO_HANG,
            cmd.current_dir(&root)
                .args(["edit", RABBIT, "release", "--from"])
                .arg(format!("{RABBIT}/1.19.3"))
                .args(["--image", RABBIT_IMAGE]),
        )
    };
    let ran = run("");
    let stderr = &ran.stderr;
    assert_ne!(ran.code, 0, "{stderr}");
    assert!(
        stderr.contains("release-config.yaml")
            && stderr.contains("the file holds 68719476736 bytes; not read")
            && stderr.contains("(the yaml-file budget, 1 MiB)")
            && stderr.contains("--limit yaml-file=VALUE"),
        "{stderr}"
    );
    // Over 1 MiB of real text (a comment, so reading it costs little): refused, then read once
    // the budget is raised.
    let config = format!(
        "# {}\n{}",
        "x".repeat(1 << 20),
        release_config("v4.20.yaml")
    );
    std::fs::write(root.join(RABBIT).join("1.19.3/release-config.yaml"), config).unwrap();
    let ran = run("");
    assert_ne!(ran.code, 0, "{}", ran.all());
    assert!(
        ran.stderr.contains("(the yaml-file budget, 1 MiB)"),
        "{}",
        ran.stderr
    );
    let ran = run(TRUSTED);
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert!(!ran.stderr.contains("yaml-file budget"), "{}", ran.stderr);
}

//! Symbolic links committed with someone else's files: a `ci.yaml`, `release-config.yaml`,
//! template, bundle manifest or rendered catalog that is a link to a file outside the directory the
//! command line names is not read, is reported by name, and its content appears nowhere (not in
//! messages, not in a rendering). Links that stay inside that directory keep working.

use crate::common::{self, Ran, run_within};

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

/// What a file outside every root holds: a token that must never be printed or rendered.
const SECRET: &str = "ghp_SECRETTOKEN123";

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const RABBIT_IMAGE: &str =
    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Fails when the secret shows anywhere in what `ran` printed.
fn keeps_the_secret(ran: &Ran) {
    assert!(
        !ran.all().contains(SECRET),
        "the secret leaked:\n{}",
        ran.all()
    );
}

fn run(dir: &Path, args: &[&str]) -> Ran {
    run_within(
        Duration::from_secs(30),
        Command::cargo_bin("fbc-edit")
            .unwrap()
            .env_remove("FBC_EDIT_FAULT")
            .env_remove("FBC_EDIT_LIMITS")
            .current_dir(dir)
            .args(args),
    )
}

/// A copy of testdata/release as `repo/`, and beside it (outside the repository) `secret.txt`.
fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&local("testdata/release"), &root);
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, format!("https://user:{SECRET}@github.com\n")).unwrap();
    (tmp, root, secret)
}

/// Replaces `file` by a symbolic link to `target`.
fn link(target: &Path, file: &Path) {
    std::fs::remove_file(file).unwrap();
    symlink(target, file).unwrap();
}

fn render_all_check(root: &Path) -> Ran {
    run(root, &["template", "render-all", "--check", RABBIT])
}

fn release(root: &Path, extra: &[&str]) -> Ran {
    let from = format!("{RABBIT}/1.19.3");
    let mut args = vec![
        "edit",
        RABBIT,
        "release",
        "--from",
        &from,
        "--image",
        RABBIT_IMAGE,
    ];
    args.extend(extra);
    run(root, &args)
}

/// Whether `text` says `file` was not read because it leads outside its directory.
fn refused(text: &str, file: &str) -> bool {
    text.lines()
        .any(|l| l.contains(file) && l.contains("outside") && l.contains("not read"))
}

#[test]
fn a_ci_yaml_linked_outside_the_operator_directory_is_not_read() {
    let (_tmp, root, secret) = repo();
    link(&secret, &root.join(RABBIT).join("ci.yaml"));
    for ran in [render_all_check(&root), release(&root, &["--dry-run"])] {
        assert_ne!(ran.code, 0, "{}", ran.all());
        assert!(refused(&ran.stderr, "ci.yaml"), "{}", ran.all());
        assert!(ran.stderr.contains("secret.txt"), "{}", ran.all());
        keeps_the_secret(&ran);
    }
}

#[test]
fn a_release_config_linked_outside_the_bundle_directory_is_refused() {
    let (_tmp, root, secret) = repo();
    link(
        &secret,
        &root.join(RABBIT).join("1.19.3/release-config.yaml"),
    );
    let ran = release(&root, &[]);
    assert_eq!(ran.code, 1, "{}", ran.all());
    assert!(refused(&ran.stderr, "release-config.yaml"), "{}", ran.all());
    keeps_the_secret(&ran);
}

#[test]
fn a_template_linked_outside_its_directory_is_not_read() {
    let (tmp, root, _) = repo();
    let template = root.join(RABBIT).join("catalog-templates/v4.20.yaml");
    // A real template kept outside, with the secret in it: read, it would render and be edited.
    let outside = tmp.path().join("v4.20.yaml");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(&outside, format!("{text}# {SECRET}\n")).unwrap();
    link(&outside, &template);
    // Found through ci.yaml's mapping, named by the release config, named on the command line.
    let template_arg = template.display().to_string();
    for ran in [
        render_all_check(&root),
        release(&root, &["--dry-run"]),
        run(&root, &["template", "render", &template_arg]),
    ] {
        assert_ne!(ran.code, 0, "{}", ran.all());
        assert!(refused(&ran.all(), "v4.20.yaml"), "{}", ran.all());
        keeps_the_secret(&ran);
    }
    // Listed from the directory: passed over, the other templates edited.
    let dir = format!("{RABBIT}/catalog-templates");
    let ran = run(
        &root,
        &[
            "edit",
            &dir,
            "set-skip-range",
            "--package",
            "rabbitmq-messaging-topology-operator",
            "--channel",
            "stable",
            "--entry",
            "rabbitmq-messaging-topology-operator.v1.19.2",
            "--range",
            ">=1.19.0 <1.19.2",
            "--dry-run",
            "--no-render",
        ],
    );
    assert!(ran.stdout.contains("v4.19.yaml"), "{}", ran.all());
    assert!(!ran.stdout.contains("v4.20.yaml"), "{}", ran.all());
    keeps_the_secret(&ran);
}

#[test]
fn a_rendered_catalog_linked_outside_the_repository_is_not_read_back() {
    let (_tmp, root, secret) = repo();
    // v4.21 is mapped but not committed: a link stands where its rendering goes.
    let catalog = root.join("catalogs/v4.21/rabbitmq-messaging-topology-operator/catalog.yaml");
    std::fs::create_dir_all(catalog.parent().unwrap()).unwrap();
    symlink(&secret, &catalog).unwrap();
    let ran = render_all_check(&root);
    assert_ne!(ran.code, 0, "{}", ran.all());
    assert!(refused(&ran.all(), "catalogs/v4.21"), "{}", ran.all());
    keeps_the_secret(&ran);
    let ran = release(&root, &[]);
    assert_ne!(ran.code, 0, "{}", ran.all());
    keeps_the_secret(&ran);
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        format!("https://user:{SECRET}@github.com\n"),
        "written through the link"
    );
}

/// A kubeconfig with a token: a Kubernetes object a bundle renderer would embed whole.
fn kubeconfig(dir: &Path) -> PathBuf {
    let file = dir.join("kubeconfig.yaml");
    std::fs::write(
        &file,
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: {SECRET}\n"
        ),
    )
    .unwrap();
    file
}

#[test]
fn a_bundle_manifest_linked_outside_the_bundle_is_neither_rendered_nor_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("clean");
    let bundle = tmp.path().join("bundle");
    common::copy_dir(&local("testdata/bundles/foo-v0.2.0"), &clean);
    common::copy_dir(&local("testdata/bundles/foo-v0.2.0"), &bundle);
    let outside = kubeconfig(tmp.path());
    symlink(&outside, bundle.join("manifests/zz-kubeconfig.yaml")).unwrap();

    let want = run(tmp.path(), &["render", "clean"]);
    assert_eq!(want.code, 0, "{}", want.all());
    let ran = run(tmp.path(), &["render", "bundle"]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert_eq!(ran.stdout, want.stdout, "the link changed the rendering");
    assert!(refused(&ran.stderr, "zz-kubeconfig.yaml"), "{}", ran.all());
    keeps_the_secret(&ran);

    let ran = run(tmp.path(), &["check-bundle", "bundle"]);
    assert!(refused(&ran.all(), "zz-kubeconfig.yaml"), "{}", ran.all());
    keeps_the_secret(&ran);
}

#[test]
fn a_release_does_not_render_a_bundle_manifest_linked_outside() {
    let (_tmp, clean, _) = repo();
    let (tmp, root, _) = repo();
    let outside = kubeconfig(tmp.path());
    symlink(
        &outside,
        root.join(RABBIT)
            .join("1.19.3/manifests/zz-kubeconfig.yaml"),
    )
    .unwrap();
    let want = release(&clean, &[]);
    assert_eq!(want.code, 0, "{}", want.all());
    let ran = release(&root, &[]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert!(refused(&ran.stderr, "zz-kubeconfig.yaml"), "{}", ran.all());
    keeps_the_secret(&ran);
    for catalog in ["v4.20", "v4.21", "v4.22"] {
        let rel = format!("catalogs/{catalog}/rabbitmq-messaging-topology-operator/catalog.yaml");
        assert_eq!(
            std::fs::read_to_string(root.join(&rel)).unwrap(),
            std::fs::read_to_string(clean.join(&rel)).unwrap(),
            "{rel}: the link changed the rendering"
        );
    }
}

#[test]
fn links_inside_their_directory_keep_working() {
    let (_tmp, clean, _) = repo();
    let (_tmp2, root, _) = repo();
    let op = root.join(RABBIT);
    // ci.yaml kept elsewhere in the operator directory.
    std::fs::rename(op.join("ci.yaml"), op.join("ci.yaml.real")).unwrap();
    symlink("ci.yaml.real", op.join("ci.yaml")).unwrap();
    // A template kept under another name beside it.
    let templates = op.join("catalog-templates");
    std::fs::rename(
        templates.join("v4.20.yaml"),
        templates.join("v4.20.yaml.orig"),
    )
    .unwrap();
    symlink("v4.20.yaml.orig", templates.join("v4.20.yaml")).unwrap();
    // The release config and a manifest kept elsewhere in the bundle directory.
    let from = op.join("1.19.3");
    std::fs::create_dir(from.join("store")).unwrap();
    std::fs::rename(
        from.join("release-config.yaml"),
        from.join("store/release-config.yaml"),
    )
    .unwrap();
    symlink(
        "store/release-config.yaml",
        from.join("release-config.yaml"),
    )
    .unwrap();
    let csv = "manifests/rabbitmq-messaging-topology-operator.clusterserviceversion.yaml";
    std::fs::rename(from.join(csv), from.join("store/csv.yaml")).unwrap();
    symlink("../store/csv.yaml", from.join(csv)).unwrap();
    // A rendered catalog kept elsewhere in its catalog directory (a file the catalog's own load
    // passes over), and one kept elsewhere in the repository for a catalog not committed.
    let dir = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator");
    std::fs::create_dir(dir.join("store")).unwrap();
    std::fs::write(dir.join(".indexignore"), "store/\n").unwrap();
    std::fs::copy(
        dir.join(".indexignore"),
        clean.join("catalogs/v4.20/rabbitmq-messaging-topology-operator/.indexignore"),
    )
    .unwrap();
    std::fs::rename(dir.join("catalog.yaml"), dir.join("store/catalog.yaml.txt")).unwrap();
    symlink("store/catalog.yaml.txt", dir.join("catalog.yaml")).unwrap();
    let v421 = "catalogs/v4.21/rabbitmq-messaging-topology-operator";
    std::fs::create_dir_all(root.join(v421)).unwrap();
    std::fs::create_dir_all(clean.join(v421)).unwrap();
    std::fs::create_dir(root.join("store")).unwrap();
    std::fs::write(root.join("store/v4.21.yaml.txt"), "# an old rendering\n").unwrap();
    std::fs::write(
        clean.join(v421).join("catalog.yaml"),
        "# an old rendering\n",
    )
    .unwrap();
    symlink(
        "../../../store/v4.21.yaml.txt",
        root.join(v421).join("catalog.yaml"),
    )
    .unwrap();

    let want = render_all_check(&clean);
    let ran = render_all_check(&root);
    assert_eq!(
        (ran.code, &ran.stdout),
        (want.code, &want.stdout),
        "{}",
        ran.all()
    );

    let want = release(&clean, &["--dry-run"]);
    assert_eq!(want.code, 0, "{}", want.all());
    let ran = release(&root, &["--dry-run"]);
    let stdout = ran
        .stdout
        .replace(&root.display().to_string(), &clean.display().to_string());
    assert_eq!(
        (ran.code, &stdout),
        (want.code, &want.stdout),
        "{}",
        ran.all()
    );
    assert!(!ran.stderr.contains("not read"), "{}", ran.stderr);

    let ran = run(&root, &["check-bundle", &from.display().to_string()]);
    assert!(!ran.all().contains("not read"), "{}", ran.all());
}

/// Every file below `dir` with its bytes, sorted by path relative to `dir`.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn a_package_manifest_file_linked_outside_is_not_migrated() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("clean");
    let linked = tmp.path().join("linked");
    common::copy_dir(&local("testdata/migrate/etcd"), &clean);
    common::copy_dir(&local("testdata/migrate/etcd"), &linked);
    // A link inside the directory migrated is followed: a CRD kept elsewhere in it.
    let crd = "0.9.4/etcdbackups.etcd.database.coreos.com.crd.yaml";
    std::fs::create_dir(linked.join("store")).unwrap();
    std::fs::rename(linked.join(crd), linked.join("store/backups.crd.txt")).unwrap();
    symlink("../store/backups.crd.txt", linked.join(crd)).unwrap();
    let want = run(tmp.path(), &["migrate", "clean", "out-clean"]);
    assert_eq!(want.code, 0, "{}", want.all());
    let ran = run(tmp.path(), &["migrate", "linked", "out-linked"]);
    assert_eq!(ran.code, 0, "{}", ran.all());
    assert_eq!(
        tree(&tmp.path().join("out-linked")),
        tree(&tmp.path().join("out-clean")),
        "the link inside changed the migration"
    );

    // One leading outside: reported as a file that cannot be read, and nothing is written.
    let outside = kubeconfig(tmp.path());
    symlink(&outside, linked.join("0.9.4/zz-kubeconfig.yaml")).unwrap();
    for args in [
        &["migrate", "--check", "linked"][..],
        &["migrate", "linked", "out-refused"],
    ] {
        let ran = run(tmp.path(), args);
        assert_ne!(ran.code, 0, "{}", ran.all());
        assert!(refused(&ran.all(), "zz-kubeconfig.yaml"), "{}", ran.all());
        keeps_the_secret(&ran);
    }
    assert!(
        !tmp.path().join("out-refused").exists()
            || tree(&tmp.path().join("out-refused")).is_empty(),
        "written"
    );
}

//! Editing templates where their authors edit them: the release step gives back the bytes the
//! community pipeline wrote, guided edits change only the lines they mean, one edit goes into many
//! templates, semver templates take their own edits and refuse what they cannot say, and problems of
//! the rendering land on the template's lines.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use fbc_core::edit::Edit;
use fbc_core::template::edit::{SemverEdit, SemverFlag, TemplateEdit};
use fbc_core::template::semver::Maturity;
use fbc_core::template::{CatalogSource, Sources};
use fbc_core::workspace::template::TemplateWorkspace;

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const RABBIT_IMAGE: &str =
    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";

/// A copy of testdata/release (a repository layout: operators/ and catalogs/).
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&local("testdata/release"), &root);
    (tmp, root)
}

/// The objects of a JSON stream (what `template render -o json` prints).
fn json_stream(bytes: &[u8]) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_slice(bytes)
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

/// Every object of the catalog in `dir`, as JSON.
fn catalog_values(dir: &Path) -> Vec<serde_json::Value> {
    let catalog = fbc_core::catalog::load(dir).unwrap();
    catalog
        .blobs
        .iter()
        .map(|b| catalog.to_json(&b.value).unwrap())
        .collect()
}

fn fbc_edit() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

/// Takes `lines` out of a file (they must be there).
fn strip(file: &Path, lines: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(lines), "{} lacks {lines:?}", file.display());
    std::fs::write(file, text.replacen(lines, "", 1)).unwrap();
}

fn templates(root: &Path, op: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root.join(op).join("catalog-templates");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn release_gives_back_the_templates_the_pipeline_wrote() {
    let (_tmp, root) = repo();
    let upstream = templates(&root, RABBIT);
    let v420 = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml");
    let upstream_catalog = std::fs::read(&v420).unwrap();
    for (name, _) in &upstream {
        let file = root.join(RABBIT).join("catalog-templates").join(name);
        strip(
            &file,
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
        );
        strip(
            &file,
            &format!("- schema: olm.bundle\n  image: \n    {RABBIT_IMAGE}\n"),
        );
    }
    let out = fbc_edit()
        .current_dir(&root)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args(["--image", RABBIT_IMAGE])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(templates(&root, RABBIT), upstream, "byte for byte");
    // The diff shown is the added lines only.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let added: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    assert_eq!(added.len(), 5 * 5, "{stdout}");
    // The catalogs the templates map to are rendered as the pipeline renders them: v4.20 (from
    // OCP 4.17 on, migrated) is the committed catalog byte for byte; the others are new.
    assert!(
        stdout.contains(
            "catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml: unchanged"
        ),
        "{stdout}"
    );
    assert_eq!(std::fs::read(&v420).unwrap(), upstream_catalog);
    for v in ["v4.17", "v4.18", "v4.19", "v4.21", "v4.22"] {
        let file = root.join(format!(
            "catalogs/{v}/rabbitmq-messaging-topology-operator/catalog.yaml"
        ));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("name: rabbitmq-messaging-topology-operator.v1.19.3\n")
                && text.contains("type: olm.csv.metadata"),
            "{v}"
        );
    }

    // Released again: nothing to add.
    let again = fbc_edit()
        .current_dir(&root)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args(["--image", RABBIT_IMAGE])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(templates(&root, RABBIT), upstream);
}

#[test]
fn release_into_a_semver_template_gives_back_the_pipelines_bytes() {
    let (_tmp, root) = repo();
    let upstream = templates(&root, "operators/konflux");
    let image = "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10";
    strip(
        &root.join("operators/konflux/catalog-templates/semver.yaml"),
        &format!("  - Image: {image}\n"),
    );
    let release = |extra: &[&str]| {
        fbc_edit()
            .current_dir(&root)
            .args([
                "edit",
                "operators/konflux",
                "release",
                "--from",
                "operators/konflux/0.2.2-rc.10",
                "--image",
                image,
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    // Without the konflux catalog to take the other bundles from, the catalog ci.yaml maps the
    // template to cannot be rendered offline: nothing is written, and the way on is named.
    let catalog = root.join("catalogs/v4.20/konflux/catalog.yaml");
    let upstream_catalog = std::fs::read(
        common::real("redhat-openshift-ecosystem__community-operators-prod__catalogs-v4.20")
            .join("konflux/catalog.yaml"),
    )
    .unwrap();
    let before = templates(&root, "operators/konflux");
    let out = release(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("nothing written")
            && stderr.contains("cannot re-render the catalogs it maps to")
            && stderr.contains("--no-render writes the templates alone"),
        "{stderr}"
    );
    assert_eq!(templates(&root, "operators/konflux"), before);
    assert!(!catalog.exists());
    // With it, the release gives back the upstream template, and the catalog rendered from it is
    // the committed one, byte for byte.
    std::fs::create_dir_all(catalog.parent().unwrap()).unwrap();
    std::fs::write(&catalog, &upstream_catalog).unwrap();
    let out = release(&[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("catalogs/v4.20/konflux/catalog.yaml: unchanged")
    );
    assert_eq!(templates(&root, "operators/konflux"), upstream);
    assert_eq!(std::fs::read(&catalog).unwrap(), upstream_catalog);
    // `--no-render` writes the template alone.
    strip(
        &root.join("operators/konflux/catalog-templates/semver.yaml"),
        &format!("  - Image: {image}\n"),
    );
    std::fs::write(&catalog, "stale\n").unwrap();
    let out = release(&["--no-render"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(templates(&root, "operators/konflux"), upstream);
    assert_eq!(std::fs::read_to_string(&catalog).unwrap(), "stale\n");
}

fn release_with(root: &Path, config: &str) -> (i32, String) {
    std::fs::write(root.join(RABBIT).join("1.19.3/release-config.yaml"), config).unwrap();
    let out = fbc_edit()
        .current_dir(root)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args(["--image", RABBIT_IMAGE])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn release_refuses_what_the_pipeline_refuses_and_what_it_gets_wrong() {
    let (_tmp, root) = repo();
    let before = templates(&root, RABBIT);
    let cases = [
        (
            "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\n  defaultChannel: fast\n",
            "defaultChannel 'fast' not found in 'v4.20.yaml'. Available channels: ['stable']",
        ),
        (
            "catalog_templates:\n- template_name: 4.17.yaml\n  channels: [stable]\n",
            "Template mapping not found for '4.17.yaml' in ci.yaml.",
        ),
        (
            "catalog_templates:\n- template_name: v4.20.yaml\n  channel: [stable]\n",
            "missing field `channels`",
        ),
        (
            "catalog_templates: []\n",
            "catalog_templates lists no template",
        ),
    ];
    for (config, want) in cases {
        let (code, stderr) = release_with(&root, config);
        assert_eq!(code, 1, "{config}: {stderr}");
        assert!(stderr.contains(want), "{config}: {stderr}");
        assert_eq!(templates(&root, RABBIT), before, "nothing written");
    }
    // An entry of the same name with other links: the pipeline would add a second entry.
    let (code, stderr) = release_with(
        &root,
        "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\n",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("channel stable of v4.20.yaml already lists rabbitmq-messaging-topology-operator.v1.19.3 with other links"),
        "{stderr}"
    );
    assert_eq!(templates(&root, RABBIT), before, "nothing written");
    // The same bundle under another reference (a digest where the template has the tag): the
    // pipeline would list it twice and render the bundle twice.
    let (code, stderr) = release_with(
        &root,
        "catalog_templates:\n- template_name: v4.20.yaml\n  channels: [stable]\n  replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let out = fbc_edit()
        .current_dir(&root)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args([
            "--image",
            "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator@sha256:0000000000000000000000000000000000000000000000000000000000000000",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("rabbitmq-messaging-topology-operator.v1.19.3 is already in v4.20.yaml as image quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3"),
        "{stderr}"
    );
}

#[test]
fn release_creates_a_template_the_mapping_names_but_that_does_not_exist() {
    let (_tmp, root) = repo();
    let ci = root.join(RABBIT).join("ci.yaml");
    let mut text = std::fs::read_to_string(&ci).unwrap();
    text.push_str(
        "    - template_name: v4.23.yaml\n      catalog_names: [\"v4.23\"]\n      type: olm.template.basic\n",
    );
    std::fs::write(&ci, text).unwrap();
    let (code, stderr) = release_with(
        &root,
        "catalog_templates:\n- template_name: v4.23.yaml\n  channels: [stable, fast]\n  replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let created =
        std::fs::read_to_string(root.join(RABBIT).join("catalog-templates/v4.23.yaml")).unwrap();
    let entry = "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n";
    assert_eq!(
        created,
        format!(
            "---\nschema: olm.template.basic\nentries:\n- schema: olm.package\n  name: rabbitmq-messaging-topology-operator\n  defaultChannel: stable\n- schema: olm.channel\n  name: stable\n  package: rabbitmq-messaging-topology-operator\n  entries:\n{entry}- schema: olm.channel\n  name: fast\n  package: rabbitmq-messaging-topology-operator\n  entries:\n{entry}- schema: olm.bundle\n  image: \n    {RABBIT_IMAGE}\n"
        )
    );
}

fn workspace(template: &Path, catalogs: &[&Path]) -> TemplateWorkspace {
    let mut sources = Sources::new();
    for c in catalogs {
        sources.push(CatalogSource::load(c).unwrap());
    }
    TemplateWorkspace::open(template, Box::new(sources)).unwrap()
}

#[test]
fn a_guided_edit_of_a_basic_template_changes_only_its_lines() {
    let (_tmp, root) = repo();
    let file = root.join(RABBIT).join("catalog-templates/v4.20.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let catalog = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator");
    let mut ws = workspace(&file, &[&catalog]);
    assert!(ws.rendering().is_ok(), "{:?}", ws.rendering().err());
    assert_eq!(ws.report().count(fbc_core::catalog::Severity::Error), 0);
    let outcome = ws
        .apply(TemplateEdit::Catalog(Edit::SetSkipRange {
            package: "rabbitmq-messaging-topology-operator".into(),
            channel: "stable".into(),
            entry: "rabbitmq-messaging-topology-operator.v1.19.3".into(),
            range: Some(">=1.19.0 <1.19.3".into()),
        }))
        .unwrap();
    assert!(outcome.introduced.is_empty());
    let preview = ws.preview().unwrap();
    let changed: Vec<&str> = preview
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(changed, ["+    skipRange: '>=1.19.0 <1.19.3'"]);
    // The rendering follows the template.
    let rendered = ws.rendered();
    let id = rendered
        .index()
        .channel("rabbitmq-messaging-topology-operator", "stable")
        .unwrap();
    let ch = fbc_core::catalog::model::Channel::read(&rendered.blob(id).value).unwrap();
    assert_eq!(
        ch.entry("rabbitmq-messaging-topology-operator.v1.19.3")
            .unwrap()
            .skip_range,
        Some(">=1.19.0 <1.19.3")
    );
    // Undo leaves nothing to write; redo and save write exactly the preview.
    ws.undo();
    assert!(!ws.is_dirty());
    ws.redo().unwrap().unwrap();
    ws.save(&Default::default()).unwrap();
    let after = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        after,
        before.replace(
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n    skipRange: '>=1.19.0 <1.19.3'\n"
        )
    );
}

#[test]
fn a_problem_of_the_rendering_is_shown_on_the_template_line_it_comes_from() {
    let (_tmp, root) = repo();
    let file = root.join(RABBIT).join("catalog-templates/v4.20.yaml");
    let catalog = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator");
    let mut ws = workspace(&file, &[&catalog]);
    let outcome = ws
        .apply(TemplateEdit::Catalog(Edit::SetReplaces {
            package: "rabbitmq-messaging-topology-operator".into(),
            channel: "stable".into(),
            entry: "rabbitmq-messaging-topology-operator.v1.19.3".into(),
            replaces: Some("rabbitmq-messaging-topology-operator.v1.19.3".into()),
        }))
        .err();
    assert!(outcome.is_some(), "an entry cannot replace itself");
    let outcome = ws
        .apply(TemplateEdit::Catalog(Edit::RemoveSkips {
            package: "rabbitmq-messaging-topology-operator".into(),
            channel: "stable".into(),
            entry: "rabbitmq-messaging-topology-operator.v1.19.3".into(),
            skips: vec!["x".into()],
        }))
        .unwrap_err();
    assert_eq!(
        outcome.to_string(),
        "rabbitmq-messaging-topology-operator.v1.19.3 does not skip x"
    );
    // Two heads: the 1.19.3 entry no longer replaces 1.19.2.
    let outcome = ws
        .apply(TemplateEdit::Catalog(Edit::SetReplaces {
            package: "rabbitmq-messaging-topology-operator".into(),
            channel: "stable".into(),
            entry: "rabbitmq-messaging-topology-operator.v1.19.3".into(),
            replaces: None,
        }))
        .unwrap();
    let codes: Vec<String> = outcome.introduced.iter().map(common::code_at).collect();
    assert!(!codes.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    let channel_line = text
        .lines()
        .position(|l| l == "- entries:")
        .map(|i| i as u32 + 1)
        .unwrap();
    for d in &outcome.introduced {
        assert!(d.location.file.ends_with("v4.20.yaml"), "{d}");
        assert!(d.location.line >= channel_line, "{d}");
    }
}

#[test]
fn one_edit_goes_into_many_templates_and_says_where_it_does_not_apply() {
    let (_tmp, root) = repo();
    // v4.17 loses its 1.19.3 entry: the skipRange cannot be set there.
    strip(
        &root.join(RABBIT).join("catalog-templates/v4.17.yaml"),
        "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
    );
    let before = templates(&root, RABBIT);
    let out = fbc_edit()
        .current_dir(&root)
        .args([
            "edit",
            RABBIT,
            "set-skip-range",
            "-p",
            "rabbitmq-messaging-topology-operator",
            "-c",
            "stable",
            "-e",
            "rabbitmq-messaging-topology-operator.v1.19.3",
            "--range",
            ">=1.19.0 <1.19.3",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(
            "not applied: rabbitmq-messaging-topology-operator.v1.19.3 is not an entry of stable"
        ),
        "{stdout}"
    );
    let after = templates(&root, RABBIT);
    for ((name, a), (_, b)) in before.iter().zip(&after) {
        let added = String::from_utf8_lossy(b)
            .matches("skipRange: '>=1.19.0 <1.19.3'")
            .count();
        assert_eq!(added, usize::from(name != "v4.17.yaml"), "{name}");
        if name == "v4.17.yaml" {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn semver_templates_take_their_own_edits_in_their_own_case() {
    let (_tmp, root) = repo();
    let file = root.join("operators/konflux/catalog-templates/semver.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let mut ws = workspace(&file, &[]);
    let image = "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10";
    ws.apply(TemplateEdit::Semver(SemverEdit::MoveBundle {
        image: image.into(),
        to: Maturity::Stable,
    }))
    .unwrap();
    ws.apply(TemplateEdit::Semver(SemverEdit::SetFlag {
        flag: SemverFlag::GenerateMajorChannels,
        value: true,
    }))
    .unwrap();
    let preview = ws.preview().unwrap();
    assert!(
        preview.contains(&format!("-  - Image: {image}")),
        "{preview}"
    );
    assert!(
        preview.contains(&format!(
            "   - Image: quay.io/community-operator-pipeline-prod/konflux:0.1.13\n+  - Image: {image}\n Candidate:"
        )),
        "appended to the Stable list: {preview}"
    );
    assert!(
        preview.contains("@@ -1,6 +1,7 @@\n ---\n Schema: olm.semver\n GenerateMinorChannels: true\n+GenerateMajorChannels: true\n Stable:\n"),
        "a new setting goes after the other settings, before the bundle lists: {preview}"
    );
    // Refusals in plain words.
    let e = ws
        .apply(TemplateEdit::Catalog(Edit::SetSkipRange {
            package: "konflux-operator".into(),
            channel: "candidate-v0.2".into(),
            entry: "konflux-operator.v0.2.2-rc.10".into(),
            range: Some("<0.2.2-rc.10".into()),
        }))
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("a semver template cannot say this: a skipRange."),
        "{e}"
    );
    let e = ws
        .apply(TemplateEdit::Semver(SemverEdit::AddBundle {
            image: image.into(),
            maturity: Maturity::Stable,
        }))
        .unwrap_err();
    assert!(e.to_string().contains("already listed under Stable"), "{e}");
    // A preference that does not fit the flags is refused with opm's words.
    ws.apply(TemplateEdit::Semver(SemverEdit::SetFlag {
        flag: SemverFlag::GenerateMinorChannels,
        value: false,
    }))
    .unwrap();
    let e = ws
        .apply(TemplateEdit::Semver(SemverEdit::SetPreference {
            preference: Some("minor".into()),
        }))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("doesn't make sense if not generating minor-version channels"),
        "{e}"
    );
    while ws.undo().is_some() {}
    assert!(!ws.is_dirty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

#[test]
fn adding_a_bundle_to_a_basic_template_lists_its_image_and_keeps_comments() {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&local("testdata/templates"), tmp.path());
    let file = tmp.path().join("basic.yaml");
    let out = fbc_edit()
        .arg("edit")
        .arg(&file)
        .arg("--catalog")
        .arg(local("testdata/add-bundle"))
        .args(["add-bundle", "--from"])
        .arg(local("testdata/bundles/foo-v0.2.0"))
        .args([
            "--image",
            "test.registry/foo-operator/foo-bundle:v0.2.0",
            "--channel",
            "stable",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("# Bundle version: 0.1.0"), "{text}");
    assert!(
        text.contains("      - name: foo.v0.2.0\n        replaces: foo.v0.1.1\n"),
        "{text}"
    );
    assert!(
        text.ends_with("  - schema: olm.bundle\n    image: test.registry/foo-operator/foo-bundle:v0.1.1\n  - schema: olm.bundle\n    image: test.registry/foo-operator/foo-bundle:v0.2.0\n"),
        "{text}"
    );
}

/// `--migrate-level bundle-object-to-csv-metadata` renders what the pipeline renders for OCP 4.17 and
/// later: with the 1.19.3 bundle rendered from its directory (so carrying olm.bundle.object) and the
/// older ones from the published catalog, the v4.20 template gives the published v4.20 package,
/// object for object.
#[test]
fn render_with_the_migrate_level_gives_the_published_catalog() {
    let root = local("testdata/release");
    let render = |level: Option<&str>| {
        let mut c = fbc_edit();
        c.args(["template", "render"])
            .arg(root.join(RABBIT).join("catalog-templates/v4.20.yaml"))
            .arg("--catalog")
            .arg(root.join("catalogs/v4.20"))
            .arg("--bundle-dir")
            .arg(format!(
                "{RABBIT_IMAGE}={}",
                root.join(RABBIT).join("1.19.3").display()
            ))
            .args(["-o", "json"]);
        if let Some(l) = level {
            c.args(["--migrate-level", l]);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        json_stream(&out.stdout)
    };
    let published = catalog_values(&root.join("catalogs/v4.20"));
    let key = |b: &serde_json::Value| format!("{} {}", b["schema"], b["name"]);
    let find = |all: &[serde_json::Value], k: &str| all.iter().find(|b| key(b) == k).cloned();
    let migrated = render(Some("bundle-object-to-csv-metadata"));
    assert_eq!(migrated.len(), published.len());
    for b in &migrated {
        assert_eq!(Some(b.clone()), find(&published, &key(b)), "{}", key(b));
    }
    // Without the migration the new bundle keeps its objects, as `opm render` gives them.
    let plain = render(None);
    let new = find(
        &plain,
        "\"olm.bundle\" \"rabbitmq-messaging-topology-operator.v1.19.3\"",
    )
    .unwrap();
    let types: Vec<&str> = new["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["type"].as_str())
        .collect();
    assert!(types.contains(&"olm.bundle.object"), "{types:?}");
    assert!(!types.contains(&"olm.csv.metadata"), "{types:?}");
    // opm's levels only.
    let out = fbc_edit()
        .args(["template", "render"])
        .arg(root.join(RABBIT).join("catalog-templates/v4.20.yaml"))
        .args(["--migrate-level", "all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown migration level \"all\""),
        "{out:?}"
    );
}

/// `template from-catalog` writes a basic template that renders back to the package it came from,
/// with `schema` first in every entry and bundles by image.
#[test]
fn a_template_from_a_catalog_renders_back_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let catalogs = local("testdata/release/catalogs/v4.20");
    let out = fbc_edit()
        .args(["template", "from-catalog"])
        .arg(&catalogs)
        .args(["-p", "rabbitmq-messaging-topology-operator"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: rabbitmq-messaging-topology-operator\n  defaultChannel: stable\n"
        ),
        "{}",
        &text[..300]
    );
    assert!(
        text.contains("- schema: olm.channel\n  package: rabbitmq-messaging-topology-operator\n  name: stable\n  entries:\n"),
        "{text}"
    );
    assert_eq!(text.matches("- schema: olm.bundle\n  image: ").count(), 12);
    let file = tmp.path().join("v4.20.yaml");
    std::fs::write(&file, &text).unwrap();
    let rendered = fbc_edit()
        .args(["template", "render"])
        .arg(&file)
        .arg("--catalog")
        .arg(&catalogs)
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{rendered:?}");
    let mut rendered = json_stream(&rendered.stdout);
    let mut published = catalog_values(&catalogs);
    let key = |b: &serde_json::Value| format!("{} {}", b["schema"], b["name"]);
    published.sort_by_key(key);
    rendered.sort_by_key(key);
    assert_eq!(rendered, published);
    // A package that is not there, and a template type that cannot say a catalog.
    let out = fbc_edit()
        .args(["template", "from-catalog"])
        .arg(&catalogs)
        .args(["-p", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("package \"nope\" is not in the catalog")
    );
    let out = fbc_edit()
        .args(["template", "from-catalog"])
        .arg(&catalogs)
        .args([
            "-p",
            "rabbitmq-messaging-topology-operator",
            "--type",
            "semver",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// In a repository layout, an edit of a template also writes the catalogs ci.yaml maps it to,
/// re-rendered; `--no-render` writes the template alone.
#[test]
fn an_edit_rerenders_the_catalogs_the_template_maps_to() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = local("testdata/render-all/community-operators-prod.tar.gz");
    tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(archive).unwrap(),
    ))
    .unpack(tmp.path())
    .unwrap();
    let root = tmp.path();
    let catalog = root.join("catalogs/v4.20/hive-operator/catalog.yaml");
    let template = root.join("operators/hive-operator/catalog-templates/basic.yaml");
    let (catalog_before, template_before) = (
        std::fs::read_to_string(&catalog).unwrap(),
        std::fs::read_to_string(&template).unwrap(),
    );
    let edit = |channel: &str, extra: &[&str]| {
        fbc_edit()
            .current_dir(root)
            .args(["edit", "operators/hive-operator"])
            .args(extra)
            .args(["set-default-channel", "-p", "hive-operator", "-c", channel])
            .output()
            .unwrap()
    };
    let out = edit("mce-2.0", &["--no-render"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&catalog).unwrap(), catalog_before);
    assert_ne!(std::fs::read_to_string(&template).unwrap(), template_before);
    // Back to alpha, re-rendered: the catalog is the committed one again, so it is not written;
    // then mce-2.0 again, which changes the catalog's one line.
    let out = edit("alpha", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("catalog.yaml: unchanged"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&template).unwrap(), template_before);
    let out = edit("mce-2.0", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("catalogs/v4.20/hive-operator/catalog.yaml"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&catalog).unwrap(),
        catalog_before.replacen("defaultChannel: alpha\n", "defaultChannel: mce-2.0\n", 1)
    );
}

#[test]
fn release_without_ci_yaml_maps_templates_by_their_names() {
    // Without ci.yaml, `template render-all` renders each catalog-templates/vX.Y.yaml into
    // catalogs/vX.Y; the release step follows the same convention instead of failing.
    let (_tmp, root) = repo();
    std::fs::remove_file(root.join(RABBIT).join("ci.yaml")).unwrap();
    let upstream = templates(&root, RABBIT);
    let v420 = root.join("catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml");
    let upstream_catalog = std::fs::read(&v420).unwrap();
    for (name, _) in &upstream {
        let file = root.join(RABBIT).join("catalog-templates").join(name);
        strip(
            &file,
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n",
        );
        strip(
            &file,
            &format!("- schema: olm.bundle\n  image: \n    {RABBIT_IMAGE}\n"),
        );
    }
    let out = fbc_edit()
        .current_dir(&root)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args(["--image", RABBIT_IMAGE])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(templates(&root, RABBIT), upstream, "byte for byte");
    assert_eq!(std::fs::read(&v420).unwrap(), upstream_catalog);
    // v4.21.yaml renders into v4.21 alone: the name says nothing of v4.22.
    let catalog = |v: &str| {
        root.join(format!(
            "catalogs/{v}/rabbitmq-messaging-topology-operator/catalog.yaml"
        ))
    };
    assert!(catalog("v4.21").is_file());
    assert!(!catalog("v4.22").exists());
}

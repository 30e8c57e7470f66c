//! Templates as their authors wrote them survive the template editor: every basic and semver
//! template of the shared real-world data (testdata/template-roundtrip) is given back byte for byte
//! when it is opened and written back unedited, and guided edits of a sample of them (from
//! testdata/render-all, whose catalogs hold their bundles) leave templates that render to valid
//! catalogs.

use std::path::{Path, PathBuf};

use fbc_core::catalog::Severity;
use fbc_core::edit::{Edit, Target};
use fbc_core::template::edit::{SemverEdit, SemverFlag, TemplateDoc, TemplateEdit};
use fbc_core::template::semver::Maturity;
use fbc_core::template::{CatalogSource, Sources, template_schema};
use fbc_core::workspace::template::TemplateWorkspace;
use serde_json::Value;

fn unpack(archive: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(archive);
    let file = std::fs::File::open(path).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(tmp.path())
        .unwrap();
    tmp
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Open, rewrite the document with itself (so the writer patches every part of it), save: the
/// bytes are the ones read, for every basic and semver template there is.
#[test]
fn every_shared_template_is_written_back_unchanged() {
    let tmp = unpack("testdata/template-roundtrip/templates.tar.gz");
    let mut files = Vec::new();
    files_under(tmp.path(), &mut files);
    files.sort();
    let (mut basic, mut semver) = (0, 0);
    let mut changed = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        match template_schema(&text) {
            Some("olm.template.basic") => basic += 1,
            Some("olm.semver") => semver += 1,
            _ => continue,
        }
        let mut doc = TemplateDoc::open(&file).unwrap();
        let same = doc.inlined();
        doc.replace(same);
        let planned = doc.catalog.plan_changes().unwrap();
        for p in &planned {
            if p.bytes != text.as_bytes() {
                changed.push(file.display().to_string());
            }
        }
    }
    assert_eq!((basic, semver), (131, 10));
    assert!(changed.is_empty(), "changed on write-back: {changed:?}");
}

/// The sample: templates of different shapes, each with the catalog that holds its bundles.
const SAMPLE: &[(&str, &str)] = &[
    // Basic, ruamel-written (long images wrapped onto their own line), several channels.
    ("rabbitmq-messaging-topology-operator", "v4.20.yaml"),
    // Basic, PyYAML-written (sorted keys, the whole package blob with its icon).
    ("trident-operator", "v4.20.yaml"),
    // Basic, one channel, skips and skipRange.
    ("opendatahub-operator", "basic-template.yaml"),
    // Semver, capitalised keys.
    ("konflux", "semver.yaml"),
    ("kairos-operator", "semver.yaml"),
];

fn open(root: &Path, op: &str, template: &str) -> TemplateWorkspace {
    let mut sources = Sources::new();
    sources.push(CatalogSource::load(&root.join("catalogs/v4.20").join(op)).unwrap());
    let file = root
        .join("operators")
        .join(op)
        .join("catalog-templates")
        .join(template);
    TemplateWorkspace::open(&file, Box::new(sources)).unwrap()
}

fn rendered_blobs(ws: &TemplateWorkspace) -> Vec<Value> {
    ws.rendering().unwrap().blobs.clone()
}

/// Guided edits that make sense for a rendering: on the default channel's head and its oldest
/// entry, a new channel, the default channel, deprecations.
fn catalog_edits(blobs: &[Value]) -> Vec<Edit> {
    let package = blobs.iter().find(|b| b["schema"] == "olm.package").unwrap();
    let pkg = package["name"].as_str().unwrap().to_string();
    let default = package["defaultChannel"].as_str().unwrap().to_string();
    let channels: Vec<&Value> = blobs
        .iter()
        .filter(|b| b["schema"] == "olm.channel")
        .collect();
    let channel = channels
        .iter()
        .find(|c| c["name"] == default.as_str())
        .unwrap();
    let entries: Vec<&str> = channel["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let replaced: Vec<&str> = channel["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["replaces"].as_str())
        .collect();
    // The head: the entry nothing replaces (the last one when several are).
    let head = entries
        .iter()
        .rev()
        .find(|e| !replaced.contains(e))
        .unwrap()
        .to_string();
    let oldest = entries.iter().find(|e| **e != head).map(|e| e.to_string());
    let mut edits = vec![
        Edit::SetSkipRange {
            package: pkg.clone(),
            channel: default.clone(),
            entry: head.clone(),
            range: Some("<0.0.1".into()),
        },
        Edit::CreateChannel {
            package: pkg.clone(),
            channel: "preview-test".into(),
            bundle: head.clone(),
        },
        Edit::Deprecate {
            package: pkg.clone(),
            target: Target::Package,
            message: "No longer maintained: yes, really.".into(),
        },
    ];
    if let Some(oldest) = oldest {
        edits.push(Edit::AddSkips {
            package: pkg.clone(),
            channel: default.clone(),
            entry: head.clone(),
            skips: vec![oldest.clone()],
        });
        edits.push(Edit::Deprecate {
            package: pkg.clone(),
            target: Target::Bundle(oldest),
            message: "1.10".into(),
        });
    }
    if let Some(other) = channels.iter().find(|c| c["name"] != default.as_str()) {
        edits.push(Edit::SetDefaultChannel {
            package: pkg.clone(),
            channel: other["name"].as_str().unwrap().to_string(),
        });
    }
    edits
}

/// The edits only a semver template has, on the images it lists.
fn semver_edits(template: &str) -> Vec<SemverEdit> {
    let images: Vec<String> = template
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- Image: "))
        .map(str::to_string)
        .collect();
    let first = images.first().unwrap().clone();
    vec![
        SemverEdit::MoveBundle {
            image: first.clone(),
            to: Maturity::Fast,
        },
        SemverEdit::RemoveBundle { image: first },
        // Each flag turned to what the template does not say.
        SemverEdit::SetFlag {
            flag: SemverFlag::GenerateMinorChannels,
            value: !template.contains("GenerateMinorChannels: true"),
        },
        SemverEdit::SetFlag {
            flag: SemverFlag::GenerateMajorChannels,
            value: !template.contains("GenerateMajorChannels: true"),
        },
    ]
}

/// Each guided edit, made alone on a fresh copy and saved, leaves a template that opens, renders
/// and validates without errors; an edit a semver template cannot express is refused in plain
/// words and nothing is written.
#[test]
fn guided_edits_of_sample_templates_render_to_valid_catalogs() {
    let mut applied = 0;
    let mut refused = 0;
    for (op, template) in SAMPLE {
        let tmp = unpack("testdata/render-all/community-operators-prod.tar.gz");
        let root = tmp.path();
        let file = root
            .join("operators")
            .join(op)
            .join("catalog-templates")
            .join(template);
        let original = std::fs::read_to_string(&file).unwrap();
        let ws = open(root, op, template);
        assert_eq!(
            ws.report().count(Severity::Error),
            0,
            "{op}: {:?}",
            ws.report()
        );
        let semver = template_schema(&original) == Some("olm.semver");
        let mut edits: Vec<TemplateEdit> = catalog_edits(&rendered_blobs(&ws))
            .into_iter()
            .map(TemplateEdit::Catalog)
            .collect();
        if semver {
            edits.extend(
                semver_edits(&original)
                    .into_iter()
                    .map(TemplateEdit::Semver),
            );
        }
        for edit in edits {
            // A semver template generates its channels: a guided edit of them is refused, saying
            // so; every other edit must go through.
            let expect_refusal = semver && matches!(edit, TemplateEdit::Catalog(_));
            std::fs::write(&file, &original).unwrap();
            let mut ws = open(root, op, template);
            let what = edit.describe();
            match ws.apply(edit) {
                Ok(_) if expect_refusal => panic!("{op}: {what}: not refused"),
                Ok(_) if !ws.is_dirty() => {}
                Ok(outcome) => {
                    assert!(
                        outcome.introduced.is_empty(),
                        "{op}: {what}: {:?}",
                        outcome.introduced
                    );
                    ws.save(&Default::default()).unwrap();
                    let again = open(root, op, template);
                    assert!(again.rendering().is_ok(), "{op}: {what}");
                    assert_eq!(
                        again.report().count(Severity::Error),
                        0,
                        "{op}: {what}: {:?}",
                        again.report()
                    );
                    assert_ne!(
                        std::fs::read_to_string(&file).unwrap(),
                        original,
                        "{op}: {what}"
                    );
                    applied += 1;
                }
                Err(e) => {
                    assert!(
                        expect_refusal
                            && e.to_string().contains("a semver template cannot say this"),
                        "{op}: {what}: {e}"
                    );
                    refused += 1;
                    assert_eq!(
                        std::fs::read_to_string(&file).unwrap(),
                        original,
                        "{op}: {what}"
                    );
                }
            }
        }
    }
    assert_eq!((applied, refused), (24, 11));
}

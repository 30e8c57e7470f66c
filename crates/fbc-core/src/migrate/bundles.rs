//! The bundles of a migrated package: which files of a version directory form each CSV's bundle,
//! the bundle checks that apply to them, and rendering the ones a channel keeps.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::bundle::{self, RegistryBundle, RenderOptions};
use crate::catalog::image_ref::ImageRef;
use crate::catalog::{Diagnostic, Location, Severity};

use super::codes;
use super::packages::PackageDir;
use super::read::{Csv, Dir, What};
use super::{Options, fill_template};

/// The files of a CSV's bundle: in a directory with one CSV, every Kubernetes object in it; where
/// several CSVs share a directory (the flat layout), the CSV, the CRDs it owns and the objects that
/// are neither CSVs nor CRDs.
fn bundle_files(dir: &Dir, csv: &Csv) -> BTreeSet<String> {
    let shared = dir.csvs().count() > 1;
    let owned: BTreeSet<&str> = csv.owned.iter().map(|(n, _)| n.as_str()).collect();
    dir.files
        .iter()
        .filter(|f| match &f.what {
            What::Csv(c) => c.file == csv.file,
            What::Crd(name) => !shared || owned.contains(name.as_str()),
            What::Object => true,
            _ => false,
        })
        .map(|f| f.name.clone())
        .collect()
}

/// Every CSV is read and checked as a bundle; the ones in a channel are rendered.
pub(super) fn build_bundles(
    p: &PackageDir,
    csvs: &BTreeMap<String, Csv>,
    kept: &BTreeMap<String, Vec<String>>,
    default: &str,
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Value> {
    let mut bundles = Vec::new();
    for dir in &p.dirs {
        report_unowned_crds(dir, diags);
        for c in dir.csvs() {
            let chans = kept.get(&c.name).cloned().unwrap_or_default();
            let default_here = chans.iter().find(|ch| *ch == default).map(String::as_str);
            let files = bundle_files(dir, c);
            let b = RegistryBundle::from_manifests(
                &dir.within,
                &dir.path,
                &dir.rel,
                |name| files.contains(name),
                &p.manifest.name,
                &chans,
                default_here,
            );
            let bundle_start = diags.len();
            check_bundle(dir, c, &b, diags);
            // Nothing to render for a CSV in no channel, a duplicate, or a bundle already in error
            // (rendering would only stop at the same problem).
            if chans.is_empty()
                || csvs.get(&c.name).map(|x| &x.file) != Some(&c.file)
                || diags[bundle_start..]
                    .iter()
                    .any(|d| d.severity == Severity::Error)
            {
                continue;
            }
            if let Some(blob) = render_bundle(&p.manifest.name, c, &b, opts, diags) {
                bundles.push(blob);
            }
        }
    }
    bundles
}

/// In a directory several CSVs share, CRDs none of them owns go into no bundle.
fn report_unowned_crds(dir: &Dir, diags: &mut Vec<Diagnostic>) {
    let csvs_here: Vec<&Csv> = dir.csvs().collect();
    if csvs_here.len() < 2 {
        return;
    }
    let owned: BTreeSet<&str> = csvs_here
        .iter()
        .flat_map(|c| c.owned.iter().map(|(n, _)| n.as_str()))
        .collect();
    for f in &dir.files {
        if let What::Crd(name) = &f.what
            && !owned.contains(name.as_str())
        {
            diags.push(Diagnostic::warning(
                codes::UNOWNED_CRD,
                Location::new(&f.rel, 0, 0),
                format!("CRD {name} is owned by none of the ClusterServiceVersions beside it, so it goes into no bundle"),
            ).with_hint("list it in spec.customresourcedefinitions.owned of the CSV that provides it"));
        }
    }
}

/// The bundle checks that apply to a version directory (the annotations are made up by the
/// migration, so their checks do not), and owned CRDs served by a CRD beside the CSV.
fn check_bundle(dir: &Dir, c: &Csv, b: &RegistryBundle, diags: &mut Vec<Diagnostic>) {
    const SYNTHETIC: &[&str] = &[
        bundle::codes::NO_ANNOTATIONS,
        bundle::codes::ANNOTATION_VALUE,
        bundle::codes::PACKAGE_NAME,
        bundle::codes::NO_CHANNELS,
        bundle::codes::DEFAULT_CHANNEL,
        bundle::codes::ANNOTATION_NAME,
        bundle::codes::OWNED_CRD_MISSING,
        bundle::codes::CSV_COUNT,
    ];
    for d in bundle::check_registry(b) {
        if !SYNTHETIC.contains(&d.code) {
            diags.push(d.for_bundle(&c.name));
        }
    }
    let missing = match b.missing_owned_crds() {
        Ok(missing) => missing,
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    bundle::codes::OWNED_CRD_MISSING,
                    c.loc.clone(),
                    e.to_string(),
                )
                .for_bundle(&c.name),
            );
            return;
        }
    };
    for (key, name) in missing {
        let loc = c
            .owned
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| l.clone())
            .unwrap_or_else(|| c.loc.clone());
        let beside = if dir.rel.is_empty() {
            "beside it".to_string()
        } else {
            format!("in {}", dir.rel)
        };
        diags.push(
            Diagnostic::error(
                bundle::codes::OWNED_CRD_MISSING,
                loc,
                format!(
                    "{} owns CRD {name} ({}/{} {}), but no CRD {beside} serves it",
                    c.name, key.group, key.version, key.kind
                ),
            )
            .with_hint("add the CustomResourceDefinition manifest, or fix the owned entry's name, version and kind")
            .for_bundle(&c.name),
        );
    }
}

/// Renders a checked bundle with its image from the template, or reports why it cannot be.
fn render_bundle(
    package: &str,
    c: &Csv,
    b: &RegistryBundle,
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let image = opts.image_template.as_ref().map(|t| {
        let version = b.version().unwrap_or_default();
        fill_template(t, package, &c.name, &version)
    });
    if let Some(img) = &image
        && let Err(e) = ImageRef::parse(img)
    {
        diags.push(
            Diagnostic::error(
                codes::IMAGE,
                c.loc.clone(),
                format!("the image template gives {img:?} for {}, which is not a valid image reference: {e}", c.name),
            )
            .for_bundle(&c.name),
        );
        return None;
    }
    let render_opts = RenderOptions {
        image,
        csv_metadata: opts.csv_metadata,
        related: crate::bundle::RelatedOrder::default(),
    };
    match bundle::render(b, &render_opts) {
        Ok(blob) => Some(blob),
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    codes::OUTPUT_INVALID,
                    c.loc.clone(),
                    format!("{} cannot be rendered as a bundle: {e}", c.name),
                )
                .for_bundle(&c.name),
            );
            None
        }
    }
}

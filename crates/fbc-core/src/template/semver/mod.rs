//! `olm.semver`: bundle images listed under `candidate`, `fast` and `stable`; channels, edges and the
//! default channel are generated from the bundles' versions exactly as opm (v1.61.0 and later) does:
//!
//! * channels `<maturity>-v<major>` (major channels) and/or `<maturity>-v<major>.<minor>` (minor
//!   channels; the default when neither kind is asked for), entries in ascending version order;
//! * only the last (highest) entry of each minor version gets edges: it replaces the highest entry
//!   of the previous minor version of the same major and maturity, and skips every other lower entry
//!   of that major seen so far; nothing links across majors or maturities;
//! * the default channel is the "high-water mark": the most stable maturity, then the channel created
//!   by the highest version, then the preferred channel kind;
//! * the package's description and icon come from the CSV of the default channel's head.

//!
//! Here: the template's model and rendering. `read` reads and checks the template, `channels`
//! generates and links the channels, `package` reads bundle versions and the package's description
//! and icon.

mod channels;
mod package;
mod read;

use serde_json::{Map, Value};

use super::opm::{OpmVersion, adjust_bundles};
use super::source::{BundleSource, resolve_all};
use super::{Rendered, TemplateError, canonical};
use crate::catalog::emit::to_node;
use crate::catalog::schema;
use crate::catalog::semver_range::Version;
use channels::channel_blob;
use package::{build_metadata_conflicts, package_metadata, package_of};

pub use channels::ChannelEntry;

/// The maturities, from least to most stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Maturity {
    Candidate,
    Fast,
    Stable,
}

impl Maturity {
    pub const ALL: [Maturity; 3] = [Maturity::Candidate, Maturity::Fast, Maturity::Stable];

    pub fn as_str(self) -> &'static str {
        match self {
            Maturity::Candidate => "candidate",
            Maturity::Fast => "fast",
            Maturity::Stable => "stable",
        }
    }
}

/// A channel kind. Ordered as opm ranks them: none < major < minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamKind {
    None,
    Major,
    Minor,
}

/// One `{image: ...}` of a list, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRef {
    pub image: String,
    pub line: u32,
}

/// The bundles of each maturity (candidate, fast, stable): name and version.
pub type Versions = [Vec<(String, Version)>; 3];

/// A semver template, read and checked.
#[derive(Debug, Clone)]
pub struct Semver {
    pub generate_major: bool,
    pub generate_minor: bool,
    /// `Major` or `Minor` after defaulting.
    pub preference: StreamKind,
    /// Bundle lists by maturity (candidate, fast, stable).
    pub lists: [Vec<BundleRef>; 3],
    /// Line of the document, for errors about the whole template.
    pub line: u32,
}

impl Semver {
    /// Every distinct image, in the order candidate, fast, stable, with its first line.
    pub fn images(&self) -> Vec<(String, u32)> {
        let mut out: Vec<(String, u32)> = Vec::new();
        for b in self.lists.iter().flatten() {
            if !out.iter().any(|(i, _)| *i == b.image) {
                out.push((b.image.clone(), b.line));
            }
        }
        out
    }

    pub(crate) fn render(
        &self,
        file: &str,
        source: &dyn BundleSource,
        opm: OpmVersion,
    ) -> Result<Rendered, TemplateError> {
        let images = self.images();
        if images.is_empty() {
            return Err(TemplateError::new(
                file,
                self.line,
                "render: no bundles specified or no bundles could be rendered",
            ));
        }
        let resolved = resolve_all(file, &images, source)?;
        let mut bundles: Vec<Value> = Vec::with_capacity(resolved.len());
        for (blob, (image, line)) in resolved.iter().zip(&images) {
            let b = canonical::bundle(&to_node(blob, false), opm.sort()).map_err(|(_, e)| {
                TemplateError::new(
                    file,
                    *line,
                    format!("the bundle resolved for image {image:?} cannot be read: {e}"),
                )
            })?;
            bundles.push(b);
        }
        adjust_bundles(opm, &mut bundles);
        let (package, versions) = self.versions(file, &images, &bundles)?;
        let (channels, default_channel) = self.channels(&versions, opm.linking());

        let mut pkg = Map::new();
        pkg.insert("schema".into(), Value::String(schema::PACKAGE.into()));
        pkg.insert("name".into(), Value::String(package.clone()));
        pkg.insert(
            "defaultChannel".into(),
            Value::String(default_channel.clone()),
        );
        let mut notes = Vec::new();
        if opm.package_from_head()
            && let Some(head) = channels
                .get(&default_channel)
                .and_then(|c| c.last())
                .map(|e| e.name.clone())
            && let Some(b) = bundles
                .iter()
                .find(|b| b.get("name").and_then(Value::as_str) == Some(head.as_str()))
        {
            package_metadata(b, &package, source, &mut pkg, &mut notes);
        }

        let mut blobs = vec![Value::Object(pkg)];
        for (name, entries) in &channels {
            blobs.push(channel_blob(name, &package, entries));
        }
        blobs.extend(bundles);
        Ok(Rendered {
            blobs,
            notes,
            images,
            as_written: Vec::new(),
        })
    }

    /// The package (fixed by the first bundle seen) and the bundles' names and versions per
    /// maturity, checked as opm checks them.
    fn versions(
        &self,
        file: &str,
        images: &[(String, u32)],
        bundles: &[Value],
    ) -> Result<(String, Versions), TemplateError> {
        let by_image = |image: &str| images.iter().position(|(i, _)| i == image);
        let mut package: Option<String> = None;
        let mut versions: Versions = Default::default();
        for (m, list) in self.lists.iter().enumerate() {
            let mut lines = Vec::with_capacity(list.len());
            for r in list {
                let Some(i) = by_image(&r.image) else {
                    return Err(TemplateError::new(
                        file,
                        r.line,
                        format!(
                            "supplied bundle image name {:?} not found in rendered bundle images",
                            r.image
                        ),
                    ));
                };
                let (name, pkg, version) = package_of(&bundles[i])
                    .map_err(|e| TemplateError::new(file, r.line, e.to_string()))?;
                match &package {
                    Some(p) if *p != pkg => {
                        return Err(TemplateError::new(
                            file,
                            r.line,
                            format!(
                                "bundle {pkg:?} does not belong to this package: {p:?} (image {:?} is bundle {name:?} of package {pkg:?})",
                                r.image
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => package = Some(pkg),
                }
                if versions[m].iter().any(|(n, _)| *n == name) {
                    return Err(TemplateError::new(
                        file,
                        r.line,
                        format!("duplicate bundle name {name:?}"),
                    ));
                }
                versions[m].push((name, version));
                lines.push(r.line);
            }
            build_metadata_conflicts(&versions[m], &lines)
                .map_err(|(line, e)| TemplateError::new(file, line, e))?;
        }
        Ok((package.unwrap_or_default(), versions))
    }
}

#[cfg(test)]
mod tests;

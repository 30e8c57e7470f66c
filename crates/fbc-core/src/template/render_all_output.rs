//! What a rendering is checked against and written as: the bundles' forms, the committed catalogs
//! compared byte for byte, the files written all or nothing.

use super::*;

/// Checks that every bundle rendered from an image the template names carries its content as opm
/// writes it for the catalog: rendering the image, opm gives one `olm.bundle.object` per manifest
/// and no `olm.csv.metadata`; the migration of catalogs from OCP 4.17 on swaps them for one
/// `olm.csv.metadata`. A bundle found in another form (a committed catalog of the other group
/// holding it) cannot be turned into that form, so the catalog is not written.
pub fn check_forms(
    file: &str,
    rendered: &crate::template::Rendered,
    migrate: bool,
) -> Result<(), TemplateError> {
    use crate::catalog::model::property_type::{BUNDLE_OBJECT, CSV_METADATA};
    use crate::template::source::has_property;
    let mut problems = Vec::new();
    for (image, line) in &rendered.images {
        let Some(blob) = rendered.blobs.iter().find(|b| {
            b["schema"] == crate::catalog::schema::BUNDLE && b["image"].as_str() == Some(image)
        }) else {
            continue;
        };
        let name = blob["name"].as_str().unwrap_or_default();
        let (objects, metadata) = (
            has_property(blob, BUNDLE_OBJECT),
            has_property(blob, CSV_METADATA),
        );
        let why = match (migrate, objects, metadata) {
            (false, true, false) | (true, false, true) => continue,
            (false, false, true) => {
                "its only source holds it as olm.csv.metadata (a catalog from OCP 4.17 on), but opm writes the image's manifests as olm.bundle.object in a catalog rendered without migration"
            }
            (false, _, _) => {
                "its source holds it without the olm.bundle.object properties opm writes from the image's manifests in a catalog rendered without migration"
            }
            (true, true, true) => {
                "its source holds both olm.bundle.object and olm.csv.metadata; opm, rendering the image with the migration, writes only olm.csv.metadata"
            }
            (true, _, false) => {
                "its source holds it with neither olm.bundle.object nor olm.csv.metadata, so the migration cannot give the olm.csv.metadata opm writes from the image's CSV"
            }
        };
        problems.push(crate::template::Problem::new(
            *line,
            format!(
                "bundle {name} (image {image}): {why}; nothing can be written as opm would write it — give its bundle directory (--bundle-dir IMAGE=DIR), a catalog holding its manifests (--catalog DIR), or --pull"
            ),
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(TemplateError::many(file, problems))
    }
}

/// The catalog file at `rel` under `root` as it is on disk, `None` when there is none. Only a
/// regular file is read (a FIFO there would never end the read), within the catalog files' limit,
/// and only when it resolves inside `root` (a link leading out of the repository is not followed).
pub fn read_output(root: &Path, rel: &str) -> std::io::Result<Option<Vec<u8>>> {
    let limit = crate::catalog::load::MAX_FILE;
    match crate::guard::file::read_limited_within(root, &root.join(rel), limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A rendered catalog file as planned for the one commit: skipped when the file on disk already
/// holds these bytes, else expected unchanged since it was read (or absent).
pub fn planned_output(root: &Path, o: &Output) -> Result<Option<PlannedFile>, RenderAllError> {
    let path = root.join(&o.rel);
    let expect = match read_output(root, &o.rel) {
        Ok(Some(bytes)) if bytes == o.text.as_bytes() => return Ok(None),
        Ok(Some(bytes)) => Expect::Unchanged {
            len: bytes.len() as u64,
            hash: xxhash_rust::xxh3::xxh3_64(&bytes),
        },
        Ok(None) => Expect::Absent,
        Err(source) => {
            return Err(RenderAllError::Read {
                file: path.display().to_string(),
                source,
            });
        }
    };
    Ok(Some(PlannedFile {
        rel: o.rel.clone(),
        bytes: o.text.clone().into_bytes(),
        expect,
    }))
}

/// The committed catalogs that differ from their rendering, in output order.
pub fn compare(root: &Path, outputs: &[Output]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for o in outputs {
        match read_output(root, &o.rel) {
            Ok(None) => out.push(Mismatch::Missing { rel: o.rel.clone() }),
            Err(e) => out.push(Mismatch::Unreadable {
                rel: o.rel.clone(),
                why: e.to_string(),
            }),
            Ok(Some(bytes)) if bytes == o.text.as_bytes() => {}
            Ok(Some(bytes)) => out.push(Mismatch::Differs {
                rel: o.rel.clone(),
                summary: diff_summary(&String::from_utf8_lossy(&bytes), &o.text),
            }),
        }
    }
    out
}

/// `N lines differ, the first at line L (-old +new)`.
pub fn diff_summary(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let (mut removed, mut added) = (0usize, 0usize);
    let mut first: Option<(usize, String, String)> = None;
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                similar::ChangeTag::Equal => {}
                similar::ChangeTag::Delete => {
                    removed += 1;
                    if first.is_none() {
                        let line = change.old_index().map_or(0, |i| i + 1);
                        first = Some((line, change.value().trim_end().to_string(), String::new()));
                    }
                }
                similar::ChangeTag::Insert => {
                    added += 1;
                    if let Some((_, _, new_line)) = &mut first
                        && new_line.is_empty()
                    {
                        *new_line = change.value().trim_end().to_string();
                    } else if first.is_none() {
                        let line = change.new_index().map_or(0, |i| i + 1);
                        first = Some((line, String::new(), change.value().trim_end().to_string()));
                    }
                }
            }
        }
    }
    let clip = |s: &str| {
        if s.chars().count() > 100 {
            format!("{}…", s.chars().take(100).collect::<String>())
        } else {
            s.to_string()
        }
    };
    match first {
        Some((line, old_line, new_line)) => format!(
            "{removed} line(s) removed, {added} added; first at line {line}: -{} +{}",
            clip(&old_line),
            clip(&new_line)
        ),
        None => "differs only in its line endings".to_string(),
    }
}

/// Writes the outputs that differ from the files on disk, all or nothing; returns the paths
/// written.
pub fn write(root: &Path, outputs: &[Output]) -> Result<Vec<String>, RenderAllError> {
    let mut planned = Vec::new();
    for o in outputs {
        planned.extend(planned_output(root, o)?);
    }
    if !planned.is_empty() {
        commit::commit(root, &planned, &CommitOptions::default())?;
    }
    Ok(planned.into_iter().map(|p| p.rel).collect())
}

//! A template's rendering written into a directory as a catalog file, for the terminal UI to open
//! as the catalog the template stands for.

use std::path::Path;

use super::{OpmVersion, Sources};

/// Why a template could not be rendered into a directory.
#[derive(Debug, thiserror::Error)]
pub enum RenderIntoError {
    #[error("{file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Template(#[from] super::TemplateError),
    #[error("cannot write the rendering into {dir}: {source}")]
    Write { dir: String, source: std::io::Error },
}

/// Renders `file` as opm release `opm` into `dir/<name>.rendered.yaml` (replacing an earlier
/// rendering); returns the rendering's notes.
pub fn render_into(
    file: &Path,
    sources: &Sources,
    dir: &Path,
    opm: OpmVersion,
) -> Result<Vec<String>, RenderIntoError> {
    let template = super::read(file).map_err(|source| RenderIntoError::Read {
        file: file.display().to_string(),
        source,
    })??;
    let rendered = template.render(sources, opm)?;
    let name = file
        .file_stem()
        .map_or_else(|| "template".into(), |s| s.to_string_lossy().into_owned());
    let text = rendered.to_text(crate::catalog::emit::OutFormat::Yaml);
    std::fs::write(dir.join(format!("{name}.rendered.yaml")), text).map_err(|source| {
        RenderIntoError::Write {
            dir: dir.display().to_string(),
            source,
        }
    })?;
    Ok(rendered.notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Sources;

    #[test]
    fn a_template_is_rendered_into_the_directory_and_replaced_on_each_render() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("semver.yaml");
        let catalog = dir.path().join("catalog");
        std::fs::create_dir(&catalog).unwrap();
        std::fs::write(
            catalog.join("c.yaml"),
            "schema: olm.bundle\nname: p.v1.0.0\npackage: p\nimage: img:1\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n",
        )
        .unwrap();
        std::fs::write(
            &file,
            "schema: olm.semver\nstable:\n  bundles:\n  - image: img:1\n",
        )
        .unwrap();
        let (sources, _) = Sources::for_template(&file, &[catalog], Vec::new(), None).unwrap();
        let out = tempfile::tempdir().unwrap();
        let notes = render_into(&file, &sources, out.path(), OpmVersion::DEFAULT).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        let text = std::fs::read_to_string(out.path().join("semver.rendered.yaml")).unwrap();
        assert!(text.contains("name: stable-v1.0\n"), "{text}");
        std::fs::write(
            &file,
            "schema: olm.semver\ngenerateMajorChannels: true\ngenerateMinorChannels: false\nstable:\n  bundles:\n  - image: img:1\n",
        )
        .unwrap();
        render_into(&file, &sources, out.path(), OpmVersion::DEFAULT).unwrap();
        let text = std::fs::read_to_string(out.path().join("semver.rendered.yaml")).unwrap();
        assert!(
            text.contains("name: stable-v1\n") && !text.contains("stable-v1.0"),
            "{text}"
        );
        std::fs::write(
            &file,
            "schema: olm.semver\nstable:\n  bundles:\n  - image: img:2\n",
        )
        .unwrap();
        let e = render_into(&file, &sources, out.path(), OpmVersion::DEFAULT)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("semver.yaml:4: cannot resolve bundle image \"img:2\""),
            "{e}"
        );
    }
}

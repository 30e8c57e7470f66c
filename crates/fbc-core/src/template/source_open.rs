//! Opening the sources a template is rendered with: the ones given, or where a template's layout
//! says its bundles are.

use super::*;

impl Sources {
    /// The sources for rendering `template`: the given catalogs and bundle directories, or — when
    /// none is given — the catalog files in the template's own directory (and below), which is
    /// where a rendered catalog usually sits next to its template. Returns a note saying where images
    /// are looked up when that default is taken. A catalog that cannot be opened is an error.
    ///
    /// `images` says how images are opened: a `--bundle-dir` whose directory is an image reference
    /// is opened as that image (asked right after the bundle directories), and with `pull` every
    /// image no catalog holds is pulled from its registry (asked last). Without it no image is
    /// opened and every `--bundle-dir` is a directory.
    pub fn for_template(
        template: &Path,
        catalogs: &[PathBuf],
        bundle_dirs: Vec<(String, PathBuf)>,
        images: Option<ImageSource>,
    ) -> Result<(Sources, Option<String>), SourcesError> {
        Sources::for_template_sharing(template, catalogs, bundle_dirs, images, None)
    }

    /// [`Sources::for_template`], the repository's bundle directories rendered into `cache`
    /// (shared by every template rendered with it, so each directory is rendered once per image).
    pub fn for_template_sharing(
        template: &Path,
        catalogs: &[PathBuf],
        bundle_dirs: Vec<(String, PathBuf)>,
        images: Option<ImageSource>,
        cache: Option<&crate::template::repository::RenderCache>,
    ) -> Result<(Sources, Option<String>), SourcesError> {
        let mut sources = Sources::new();
        sources.migrations = cache.map(|c| c.migrations().clone());
        let mut note = None;
        let mut images = images;
        // Without an opener, every `--bundle-dir` value is a directory.
        let (as_images, bundle_dirs): (Vec<_>, Vec<_>) = bundle_dirs
            .into_iter()
            .partition(|(_, dir)| images.as_ref().is_some_and(|i| i.opener.is_image(dir)));
        if let Some(images) = &mut images {
            images.mapped.extend(
                as_images
                    .into_iter()
                    .map(|(i, d)| (i, d.to_string_lossy().into_owned())),
            );
        }
        let pull = images.as_mut().is_some_and(|i| std::mem::take(&mut i.pull));
        for (image, dir) in &bundle_dirs {
            if !dir.is_dir() {
                return Err(SourcesError::NotADirectory {
                    image: image.clone(),
                    dir: dir.clone(),
                });
            }
        }
        if !bundle_dirs.is_empty() {
            sources.push(BundleDirSource::new(bundle_dirs));
        }
        if let Some(images) = images.as_ref().filter(|i| !i.mapped.is_empty()) {
            sources.push(images.clone());
        }
        let given = !sources.list.is_empty();
        // In a community repository, the images its pipeline builds from its own bundle
        // directories: before any catalog, which may hold them in another form.
        let repo_dirs = crate::template::repository::RepositoryBundles::for_template(template)
            .map_err(|e| SourcesError::Repository(Box::new(e)))?;
        let repo_note = repo_dirs.as_ref().map(|r| {
            format!(
                "bundle images {}<operator>:<version> are rendered from the repository's operators/<operator>/<version>/ ({}); ",
                crate::template::repository::COMMUNITY_IMAGES,
                r.root().display()
            )
        });
        // Without --catalog: the operator's rendered catalogs in a repository layout (beside any
        // bundle directory given), else — with nothing given at all — the template's directory.
        let mut dirs: Vec<PathBuf> = catalogs.to_vec();
        if catalogs.is_empty() {
            let repo = repository_catalogs(template).map_err(SourcesError::Listing)?;
            if !repo.is_empty() {
                note = Some(format!(
                    "{}bundle images are looked up in the operator's rendered catalogs ({}); --catalog DIR or --bundle-dir IMAGE=DIR choose other sources",
                    repo_note.clone().unwrap_or_default(),
                    repo.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                dirs = repo;
            } else if !given {
                let dir = match template.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                note = Some(format!(
                    "bundle images are looked up in the catalog files under {} (the template's directory); --catalog DIR or --bundle-dir IMAGE=DIR choose other sources",
                    dir.display()
                ));
                dirs = vec![dir];
            }
        }
        let mut loaded = Vec::with_capacity(dirs.len());
        for dir in &dirs {
            loaded.push(CatalogSource::load(dir).map_err(SourcesError::Catalog)?);
        }
        if let Some(mut repo) = repo_dirs {
            if let Some(cache) = cache {
                repo = repo.with_cache(cache.clone());
            }
            for (image, version) in loaded.iter().flat_map(CatalogSource::versions) {
                repo.released(image, version);
            }
            let shared: Vec<std::sync::Arc<CatalogSource>> =
                loaded.into_iter().map(std::sync::Arc::new).collect();
            repo.committed_catalogs(shared.clone());
            sources.push(repo);
            for source in shared {
                sources.push(source);
            }
        } else {
            for source in loaded {
                sources.push(source);
            }
        }
        if let Some(images) = images.filter(|_| pull) {
            sources.push(ImageSource {
                mapped: Vec::new(),
                pull: true,
                ..images
            });
        }
        Ok((sources, note))
    }
}

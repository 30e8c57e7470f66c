//! `fbc-edit template render FILE`: render an `olm.template.basic`, `olm.semver` or
//! `olm.template.substitutes` template offline.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::bundle::RenderOutput;
use super::exit;
use super::image::ImageArgs;
use fbc_core::template::{self, BundleDirSource, ImageSource, OpmChoice, OpmVersion, Sources};

#[derive(Debug, Args)]
pub struct TemplateArgs {
    #[command(subcommand)]
    pub command: TemplateCommand,
}

#[derive(Debug, Subcommand)]
pub enum TemplateCommand {
    /// Render a basic, semver or substitutes template into a catalog (printed), as `opm alpha
    /// render-template` does, taking each bundle from a catalog that holds its image or from a
    /// bundle directory.
    Render(TemplateRenderArgs),
    /// Write a basic or substitutes template for a package of a rendered catalog (as `opm alpha
    /// convert-template basic|substitutes` does, with `schema` first in every entry): its objects
    /// as they are, each bundle as `{schema: olm.bundle, image: REF}` in a basic template, whole in
    /// a substitutes one. Rendering the template gives the package back.
    FromCatalog(FromCatalogArgs),
    /// Re-render every catalog an operator's templates map to, byte for byte as the repository's
    /// `make catalogs` writes them: `catalogs/<catalog>/<operator>/catalog.yaml` for each catalog
    /// `ci.yaml`'s `fbc.catalog_mapping` names (catalogs from v4.17 on migrated to
    /// olm.csv.metadata). Without a mapping, `catalog-templates/vX.Y.yaml` renders into `vX.Y`.
    /// All catalogs are written or none.
    RenderAll(RenderAllArgs),
}

#[derive(Debug, Args)]
pub struct RenderAllArgs {
    /// The operator directory (`operators/<op>`, holding `ci.yaml` and `catalog-templates/`).
    pub dir: PathBuf,
    /// Write nothing: compare each rendering with the committed catalog and exit 1 when one
    /// differs or is missing, as the repository's CI does.
    #[arg(long)]
    pub check: bool,
    /// Bundle sources, as for `template render`. Without --catalog, the operator's committed
    /// catalogs (`catalogs/*/<op>`) are searched, those the template maps to first.
    #[command(flatten)]
    pub sources: SourceArgs,
    #[command(flatten)]
    pub images: ImageArgs,
}

#[derive(Debug, Args)]
pub struct FromCatalogArgs {
    /// The catalog directory (or catalog image).
    pub dir: PathBuf,
    #[arg(long, short)]
    pub package: String,
    /// The template type: `basic` (bundles by image) or `substitutes` (bundles whole, no
    /// substitutions yet); a semver template cannot say every catalog's channels.
    #[arg(long = "type", default_value = "basic")]
    pub kind: String,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = RenderOutput::Yaml)]
    pub output: RenderOutput,
    #[command(flatten)]
    pub images: ImageArgs,
}

/// Where a template's bundle images are resolved from.
#[derive(Debug, Args, Clone, Default)]
pub struct SourceArgs {
    /// A rendered catalog holding bundles with the template's images (repeatable). Without this
    /// and without --bundle-dir, the template's own directory is searched.
    #[arg(long, value_name = "DIR")]
    pub catalog: Vec<PathBuf>,
    /// A registry+v1 bundle directory standing for a bundle image (repeatable); asked before any
    /// catalog. DIR may also be an image (oci:DIR[:TAG], oci-archive:FILE, docker-archive:FILE,
    /// REGISTRY/REPO:TAG).
    #[arg(long = "bundle-dir", value_name = "IMAGE=DIR", value_parser = BundleDirSource::parse_mapping)]
    pub bundle_dirs: Vec<(String, PathBuf)>,
    /// Pull the bundle images no catalog or bundle directory holds from their registries, as opm
    /// does.
    #[arg(long)]
    pub pull: bool,
    /// Render as this opm release (v1.46.0 to v1.61.x, v1.67.0 to v1.73.x), whose template
    /// output differs from others' (docs/compat.md). Without it, a template in a repository's
    /// `operators/<op>/` renders as the release the operator's Makefile pins (`OPM_VERSION ?=
    /// vX.Y.Z`), anything else as v1.71.0.
    #[arg(long, value_name = "vX.Y.Z", value_parser = OpmVersion::parse)]
    pub opm_version: Option<OpmVersion>,
}

impl SourceArgs {
    /// How images are opened for the template.
    fn images(&self, images: &ImageArgs, progress: bool) -> ImageSource {
        let mut options = images.options();
        options.progress = progress;
        ImageSource {
            pull: self.pull,
            ..ImageSource::new(std::sync::Arc::new(fbc_image::Opener { options }))
        }
    }
}

#[derive(Debug, Args)]
pub struct TemplateRenderArgs {
    /// The template file (YAML or JSON; its type comes from its `schema`).
    pub file: PathBuf,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t)]
    pub output: RenderOutput,
    /// Migrations run on the rendered bundles, as opm's: `none`, or `bundle-object-to-csv-metadata`
    /// (each bundle's olm.bundle.object properties become one olm.csv.metadata, as catalogs for
    /// OCP 4.17 and later are rendered).
    #[arg(long, value_name = "LEVEL")]
    pub migrate_level: Option<String>,
    #[command(flatten)]
    pub images: ImageArgs,
}

/// The migration levels opm knows, in order.
const MIGRATE_LEVELS: [&str; 2] = ["none", "bundle-object-to-csv-metadata"];

/// Runs the migrations up to and including `level` on the bundles rendered from images, as opm
/// does as it renders each (bundles a template holds as written are left as they are).
pub fn migrate(rendered: &mut template::Rendered, level: &str) -> Result<(), String> {
    if level != MIGRATE_LEVELS[1] {
        return Ok(());
    }
    let as_written = rendered.as_written.clone();
    for (_, blob) in rendered.blobs.iter_mut().enumerate().filter(|(i, b)| {
        b["schema"] == fbc_core::catalog::schema::BUNDLE && !as_written.contains(i)
    }) {
        let name = blob["name"].as_str().unwrap_or_default().to_string();
        fbc_core::bundle::migrate_bundle_objects(blob)
            .map_err(|e| format!("bundle {name}: {e}"))?;
    }
    Ok(())
}

pub fn run(args: &TemplateArgs) -> i32 {
    match &args.command {
        TemplateCommand::Render(a) => run_render(a),
        TemplateCommand::FromCatalog(a) => run_from_catalog(a),
        TemplateCommand::RenderAll(a) => run_render_all(a),
    }
}

fn run_render_all(args: &RenderAllArgs) -> i32 {
    use fbc_core::template::render_all::{self, Mismatch};
    let plan = match render_all::plan_as(&args.dir, args.sources.opm_version) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    for n in &plan.notes {
        eprintln!("note: {n}");
    }
    // Every template of the operator renders the repository's bundle directories once per image.
    let cache = fbc_core::template::repository::RenderCache::default();
    let sources_for = |template: &Path| {
        Sources::for_template_sharing(
            template,
            &args.sources.catalog,
            args.sources.bundle_dirs.clone(),
            Some(args.sources.images(&args.images, true)),
            Some(&cache),
        )
        .map(|(s, _)| s)
    };
    let (outputs, notes) = match render_all::render(&plan, &sources_for) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            eprintln!("fbc-edit: nothing was written");
            return exit::INVALID;
        }
    };
    for n in &notes {
        eprintln!("note: {n}");
    }
    if args.check {
        let mismatches = render_all::compare(&plan.root, &outputs);
        for m in &mismatches {
            match m {
                Mismatch::Missing { rel } => println!("{rel}: missing"),
                Mismatch::Differs { rel, summary } => println!("{rel}: differs: {summary}"),
                Mismatch::Unreadable { rel, why } => println!("{rel}: {why}"),
            }
        }
        println!(
            "{} of {} catalogs match their templates' rendering",
            outputs.len() - mismatches.len(),
            outputs.len()
        );
        return if mismatches.is_empty() {
            exit::OK
        } else {
            exit::INVALID
        };
    }
    match render_all::write(&plan.root, &outputs) {
        Ok(written) => {
            for o in &outputs {
                let what = if written.contains(&o.rel) {
                    "written"
                } else {
                    "unchanged"
                };
                println!("{}: {what} (from {})", o.rel, o.template_name);
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::INVALID
        }
    }
}

fn run_from_catalog(args: &FromCatalogArgs) -> i32 {
    if args.kind != "basic" && args.kind != "substitutes" {
        eprintln!(
            "fbc-edit: --type {}: only basic and substitutes templates are written from a catalog (a semver template generates its channels, so it cannot say every catalog's)",
            args.kind
        );
        return exit::USAGE;
    }
    let catalog = match super::open::catalog(&args.dir, &args.images) {
        Ok(c) => c,
        Err(e) => return e.report(),
    };
    let converted = if args.kind == "substitutes" {
        template::convert::substitutes_template(&catalog, &args.package)
    } else {
        template::convert::basic_template(&catalog, &args.package)
    };
    let template = match converted {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::INVALID;
        }
    };
    let mut out = String::new();
    match fbc_core::catalog::emit::OutFormat::from(args.output) {
        fbc_core::catalog::emit::OutFormat::Json => {
            fbc_core::catalog::emit::write_go_json(&mut out, &template, Some("    "), false, 0);
            out.push('\n');
        }
        fbc_core::catalog::emit::OutFormat::Yaml => {
            let node = fbc_core::catalog::emit::to_node(&template, false);
            fbc_core::catalog::yaml::write_document(
                &mut out,
                &node,
                fbc_core::catalog::yaml::YamlStyle::default(),
                &|_| String::new(),
            );
        }
    }
    print!("{out}");
    exit::OK
}

fn run_render(args: &TemplateRenderArgs) -> i32 {
    if let Some(level) = &args.migrate_level
        && !MIGRATE_LEVELS.contains(&level.as_str())
    {
        eprintln!(
            "fbc-edit: unknown migration level \"{level}\" (known: {})",
            MIGRATE_LEVELS.join(", ")
        );
        return exit::USAGE;
    }
    let parsed = match template::read(&args.file) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fbc-edit: {}: {e}", args.file.display());
            return exit::USAGE;
        }
    };
    let t = match parsed {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::INVALID;
        }
    };
    let (sources, note) = match Sources::for_template(
        &args.file,
        &args.sources.catalog,
        args.sources.bundle_dirs.clone(),
        Some(args.sources.images(&args.images, true)),
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::USAGE;
        }
    };
    let opm = match OpmChoice::resolve(args.sources.opm_version, &args.file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::INVALID;
        }
    };
    match t.render(&sources, opm.version) {
        Ok(mut r) => {
            // The plain default renders as before and goes unsaid, like opm's silent output.
            if opm.is_chosen() {
                eprintln!("note: {}", opm.note());
            }
            if let Some(level) = &args.migrate_level
                && let Err(e) = migrate(&mut r, level)
            {
                eprintln!("fbc-edit: {e}");
                return exit::INVALID;
            }
            // The output is a preview on stdout, not a catalog written into a repository (there
            // render-all refuses): bundles not in the form opm writes at this migration level
            // are said, the first with its line.
            if let Err(e) = fbc_core::template::render_all::check_forms(
                &args.file.display().to_string(),
                &r,
                args.migrate_level.is_some(),
            ) && let Some(first) = e.problems.first()
            {
                eprintln!(
                    "warning: {} bundle(s) are not in the form opm writes {}; the first, at {}:{}: {}",
                    e.problems.len(),
                    if args.migrate_level.is_some() {
                        "with the migration"
                    } else {
                        "without --migrate-level"
                    },
                    e.file,
                    first.line,
                    first.message
                );
            }
            for n in note.iter().chain(&r.notes) {
                eprintln!("note: {n}");
            }
            print!("{}", r.to_text(args.output.into()));
            exit::OK
        }
        Err(e) => {
            if let Some(n) = note {
                eprintln!("note: {n}");
            }
            eprintln!("fbc-edit: {e}");
            exit::INVALID
        }
    }
}

/// `fbc-edit TEMPLATE_FILE` or `fbc-edit TEMPLATE_DIR`: the TUI editing the templates, their
/// rendering on screen.
pub fn run_tui(path: &Path, sources: &SourceArgs, images: &ImageArgs, compare: bool) -> i32 {
    let opm_version = sources.opm_version;
    let files = if path.is_dir() {
        super::edit_template::template_files(path)
    } else {
        let text = match template::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("fbc-edit: {}: {e}", path.display());
                return exit::USAGE;
            }
        };
        if template::template_schema(&text).is_none() {
            eprintln!(
                "fbc-edit: {}: not a directory, nor a catalog template (a file whose first document has schema olm.template.basic, olm.semver or olm.template.substitutes)",
                path.display()
            );
            return exit::USAGE;
        }
        vec![path.to_path_buf()]
    };
    let Some(first) = files.first() else {
        eprintln!("fbc-edit: {}: no templates in it", path.display());
        return exit::USAGE;
    };
    if compare {
        eprintln!("fbc-edit: --compare is for catalog directories, not templates");
        return exit::USAGE;
    }
    let (sources, note) =
        // No progress bar: the terminal belongs to the TUI while images are pulled.
        match Sources::for_template(
            first,
            &sources.catalog,
            sources.bundle_dirs.clone(),
            Some(sources.images(images, false)),
        ) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("fbc-edit: {e}");
                return exit::USAGE;
            }
        };
    match crate::tui::run_templates(path, files, sources, note, opm_version) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            exit::USAGE
        }
    }
}

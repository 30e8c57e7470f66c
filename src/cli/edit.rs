//! `fbc-edit edit DIR <edit>`: one guided edit, checked, previewed and saved. In place of DIR, template
//! files or directories of templates take the edit into the templates (see [`super::edit_template`]).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::edit_args::{
    AddBundle, AddSkips, CatalogEdit, CreateChannel, DeleteChannel, Deprecate, Promote,
    RemoveBundle, RemoveEntry, RemoveSkips, SetDefaultChannel, SetReplaces, SetSkipRange,
    Undeprecate,
};
use super::exit;
use fbc_core::catalog::commit::CommitOptions;
use fbc_core::edit::Edit;
use fbc_core::workspace::Workspace;

#[derive(Debug, Args)]
pub struct EditArgs {
    /// Catalog directory; or one or more template files, or directories of templates (an operator
    /// directory with catalog-templates/, or catalog-templates/ itself).
    #[arg(required = true, num_args = 1.., value_name = "DIR|TEMPLATE")]
    pub paths: Vec<PathBuf>,
    /// For templates: where bundle images are resolved from.
    #[command(flatten)]
    pub sources: super::template::SourceArgs,
    /// Print the diff and write nothing.
    #[arg(long, global = true)]
    pub dry_run: bool,
    /// Write even when the result would be invalid, or a file to write is read-only.
    #[arg(long, global = true)]
    pub force: bool,
    /// For templates in a repository layout: write the templates only, without re-rendering the
    /// catalogs they map to.
    #[arg(long, global = true)]
    pub no_render: bool,
    #[command(subcommand)]
    pub edit: EditCommand,
}

#[derive(Debug, Subcommand)]
pub enum EditCommand {
    /// Add a bundle to a channel as its new head (replacing the current head by default).
    Promote(Promote),
    SetDefaultChannel(SetDefaultChannel),
    CreateChannel(CreateChannel),
    DeleteChannel(DeleteChannel),
    AddSkips(AddSkips),
    RemoveSkips(RemoveSkips),
    SetSkipRange(SetSkipRange),
    SetReplaces(SetReplaces),
    /// Remove an entry; its successors take over its replaces, skips and skipRange, so nothing is
    /// stranded.
    RemoveEntry(RemoveEntry),
    /// Remove a bundle from its package: its channel entries, olm.bundle and deprecations.
    ///
    /// Refused when a channel would be left empty or with a dangling replaces; --relink hands the
    /// removed entry's replaces to the entries that replaced it, its skips (and its skipRange where
    /// they have none) to the entries that replaced or skipped it, and drops skips naming it.
    RemoveBundle(RemoveBundle),
    Deprecate(Deprecate),
    Undeprecate(Undeprecate),
    /// Render a registry+v1 bundle directory into the catalog (creating its package when new) and
    /// promote it into a channel (created when missing).
    AddBundle(AddBundle),
    /// Templates: apply a bundle directory's release-config.yaml to the operator's templates, as the
    /// community pipeline's release step does.
    Release {
        /// The bundle directory holding release-config.yaml.
        #[arg(long, value_name = "BUNDLE_DIR")]
        from: PathBuf,
        /// The bundle's image reference.
        #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
        image: String,
    },
    /// Semver templates: list a bundle image under Candidate, Fast or Stable.
    AddImage {
        #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
        image: String,
        /// Candidate, Fast or Stable.
        #[arg(long, short)]
        channel: String,
    },
    /// Semver templates: move a listed bundle image to Candidate, Fast or Stable.
    MoveImage {
        #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
        image: String,
        #[arg(long, short)]
        channel: String,
    },
    /// Semver templates: take a bundle image out of every list.
    RemoveImage {
        #[arg(long, value_name = "REF", value_parser = super::edit_args::image_ref)]
        image: String,
    },
    /// Semver templates: GenerateMajorChannels / GenerateMinorChannels.
    SetGenerate {
        #[arg(long, value_name = "true|false")]
        major: Option<bool>,
        #[arg(long, value_name = "true|false")]
        minor: Option<bool>,
    },
    /// Semver templates: DefaultChannelTypePreference (major, minor, or none for opm's default).
    SetChannelPreference {
        #[arg(value_parser = ["major", "minor", "none"])]
        preference: String,
    },
    /// Substitutes templates: the bundle rendered from an image takes the place of bundle BASE in
    /// every channel listing it (a re-spin: the same version with a higher release, or a higher
    /// version), as `substitutions: [{name: IMAGE, base: BASE}]`.
    Substitute {
        /// The bundle substituted (its name, as the channels' entries list it).
        #[arg(long, value_name = "BUNDLE")]
        base: String,
        /// The substitute's bundle image.
        #[arg(long, value_name = "REF")]
        image: String,
        /// A registry+v1 bundle directory standing for the image (as --bundle-dir IMAGE=DIR).
        #[arg(long, value_name = "BUNDLE_DIR")]
        from: Option<PathBuf>,
    },
    /// Substitutes templates: drop the substitution of bundle BASE.
    Unsubstitute {
        #[arg(long, value_name = "BUNDLE")]
        base: String,
    },
}

impl EditCommand {
    /// The catalog edit a subcommand asks for; `None` for the edits only templates have.
    fn catalog_edit(&self) -> Option<&dyn CatalogEdit> {
        use EditCommand as C;
        Some(match self {
            C::Promote(a) => a,
            C::SetDefaultChannel(a) => a,
            C::CreateChannel(a) => a,
            C::DeleteChannel(a) => a,
            C::AddSkips(a) => a,
            C::RemoveSkips(a) => a,
            C::SetSkipRange(a) => a,
            C::SetReplaces(a) => a,
            C::RemoveEntry(a) => a,
            C::RemoveBundle(a) => a,
            C::Deprecate(a) => a,
            C::Undeprecate(a) => a,
            C::AddBundle(a) => a,
            C::Release { .. }
            | C::AddImage { .. }
            | C::MoveImage { .. }
            | C::RemoveImage { .. }
            | C::SetGenerate { .. }
            | C::SetChannelPreference { .. }
            | C::Substitute { .. }
            | C::Unsubstitute { .. } => return None,
        })
    }

    /// Whether the edit is one only templates have.
    pub(super) fn template_only(&self) -> bool {
        self.catalog_edit().is_none()
    }

    /// The edit, or why it cannot be built (exit code and message).
    pub(super) fn edit(&self) -> Result<Edit, (i32, String)> {
        match self.catalog_edit() {
            Some(e) => e.edit(),
            None => Err((
                exit::USAGE,
                "this edit is for templates, not catalogs".into(),
            )),
        }
    }
}

pub fn run(args: &EditArgs) -> i32 {
    if let Some(image) = args.paths.iter().find(|p| fbc_image::is_image(p)) {
        eprintln!(
            "fbc-edit: {0} is an image, which cannot be edited in place; `fbc-edit export {0} DIR` writes its catalog out to edit",
            image.display()
        );
        return exit::USAGE;
    }
    let catalog_dir = match args.paths.as_slice() {
        [one] if !super::edit_template::holds_templates(one) => one,
        _ => return super::edit_template::run(args),
    };
    if args.edit.template_only() {
        eprintln!(
            "fbc-edit: {} is a catalog directory, and this edit is for templates (give a template file or a directory of templates)",
            catalog_dir.display()
        );
        return exit::USAGE;
    }
    let catalog = match super::open::Located::dir(catalog_dir).load() {
        Ok(c) => c.into_catalog(),
        Err(e) => return e.report(),
    };
    let edit = match args.edit.edit() {
        Ok(e) => e,
        Err((code, message)) => {
            eprintln!("fbc-edit: {message}");
            return code;
        }
    };
    for line in skip_range_effect(&catalog, &edit) {
        eprintln!("{line}");
    }
    // One edit, then the program ends: only the edited package can gain or lose errors.
    let mut ws = Workspace::open_for(catalog, edit.package());
    if let Err(code) = apply_checked(&mut ws, &edit, args.force) {
        return code;
    }
    show_and_write(ws, &edit, args)
}

/// Applies the edit; refused (with the exit code) when it cannot be made, or would leave the
/// catalog invalid without `--force`.
fn apply_checked(ws: &mut Workspace, edit: &Edit, force: bool) -> Result<(), i32> {
    let outcome = match ws.apply(edit.clone()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fbc-edit: cannot {}: {e}", edit.describe());
            if let Some(h) = hint(&e) {
                eprintln!("  hint: {h}");
            }
            // A name that does not exist is a usage error, as for every command.
            return Err(if e.is_lookup() {
                exit::USAGE
            } else {
                exit::INVALID
            });
        }
    };
    if !outcome.introduced.is_empty() && !force {
        eprintln!(
            "fbc-edit: {} would leave the catalog invalid; nothing was written (--force writes anyway):",
            edit.describe()
        );
        for d in &outcome.introduced {
            eprintln!("  {}[{}]: {}", d.location, d.code, d.message);
        }
        return Err(exit::INVALID);
    }
    Ok(())
}

/// What to do about a refusal, in the command line's words, when a flag changes the answer.
pub(super) fn hint(e: &fbc_core::edit::EditError) -> Option<&'static str> {
    match e {
        fbc_core::edit::EditError::WouldDangle { .. } => Some(
            "--relink hands them its replaces and its skips (and its skipRange where they have none)",
        ),
        _ => None,
    }
}

/// Prints the diff, then writes it (all or nothing) unless it is a dry run.
fn show_and_write(ws: Workspace, edit: &Edit, args: &EditArgs) -> i32 {
    let diff = match ws.preview() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fbc-edit: {e}");
            return exit::INVALID;
        }
    };
    print!("{diff}");
    if args.dry_run {
        eprintln!("{} (dry run: nothing written)", edit.describe());
        return exit::OK;
    }
    let options = CommitOptions {
        force_read_only: args.force,
        ..CommitOptions::default()
    };
    match ws.write_and_finish(&options) {
        Ok(report) => {
            eprintln!("{}: wrote {}", edit.describe(), report.written.join(", "));
            exit::OK
        }
        Err(e) => {
            if e.wrote_nothing() {
                eprintln!("fbc-edit: nothing written: {e}");
            } else {
                eprintln!("fbc-edit: {e}");
            }
            if e.is_read_only() {
                eprintln!("  hint: --force writes read-only files too");
            }
            exit::USAGE
        }
    }
}

/// What a skipRange about to be set matches in its channel, and which of those entries OLM v0 drops
/// (prunes): clusters running them still upgrade through the range, but nobody can install them.
fn skip_range_effect(catalog: &fbc_core::catalog::Catalog, edit: &Edit) -> Vec<String> {
    use fbc_core::catalog::semver_range::Range;
    use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
    let Edit::SetSkipRange {
        package,
        channel,
        entry,
        range: Some(r),
    } = edit
    else {
        return Vec::new();
    };
    let (Some(idx), Ok(range)) = (catalog.index().package(package), Range::parse(r)) else {
        return Vec::new();
    };
    let facts = PackageFacts::read(catalog, idx);
    let Some(g) = idx
        .channel(channel)
        .and_then(|id| ChannelGraph::build(catalog, &facts, id))
    else {
        return Vec::new();
    };
    let effect = fbc_core::graph::query::range_effect(&g, &range, g.node(entry));
    let names = |ns: &[petgraph::graph::NodeIndex]| -> String {
        if ns.is_empty() {
            return "none".into();
        }
        ns.iter()
            .map(|&n| g.graph[n].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        format!(
            "skipRange {r:?} matches {} entr{} of {package}/{channel}: {}",
            effect.matched.len(),
            if effect.matched.len() == 1 {
                "y"
            } else {
                "ies"
            },
            names(&effect.matched)
        ),
        format!(
            "of those, OLM v0 prunes {} (skipped or stranded: clusters on them still upgrade, nobody can install them): {}",
            effect.pruned.len(),
            names(&effect.pruned)
        ),
    ]
}

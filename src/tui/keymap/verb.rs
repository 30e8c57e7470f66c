//! The verbs only the palette runs, with what each takes and does, and the palette's own lists
//! (its hint line, its candidates' descriptions), over the verbs and the key commands.

use super::command::Command;

/// A verb only the palette runs (`:package NAME`); the palette runs the key commands that act on
/// the catalog or the screen by their names as well ([`Command::in_palette`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// Select a package.
    Package,
    /// Select a channel of the selected package.
    Channel,
    /// Validate the whole catalog afresh.
    Validate,
    /// Read the catalog (or the templates) again from disk, the unsaved edits applied again.
    Reload,
    /// Write the selected channel's graph (an image's catalog: `export DIR`).
    Export,
    /// Review mode: write the changes as Markdown for a pull request.
    ExportChanges,
    /// Semver template: list a bundle image under a maturity.
    AddImage,
    /// Semver template: move a listed image to another maturity.
    MoveImage,
    /// Semver template: take an image out.
    RemoveImage,
    /// Semver template: GenerateMajorChannels / GenerateMinorChannels.
    Generate,
    /// Semver template: DefaultChannelTypePreference.
    ChannelPreference,
    /// Substitutes template: an image's bundle takes a bundle's place.
    Substitute,
    /// Substitutes template: drop a bundle's substitution.
    Unsubstitute,
    Quit,
}

/// Every palette verb, in the order the palette's line lists them: its name and what follows it.
const VERBS: &[(Verb, &str, &str)] = &[
    (Verb::Package, "package", " NAME"),
    (Verb::Channel, "channel", " NAME"),
    (Verb::Validate, "validate", ""),
    (Verb::Reload, "reload", ""),
    (Verb::Export, "export", " mermaid|dot FILE"),
    (Verb::ExportChanges, "export-changes", " FILE.md"),
    (Verb::AddImage, "add-image", " REF candidate|fast|stable"),
    (Verb::MoveImage, "move-image", " REF candidate|fast|stable"),
    (Verb::RemoveImage, "remove-image", " REF"),
    (Verb::Generate, "generate", " major|minor on|off"),
    (
        Verb::ChannelPreference,
        "channel-preference",
        " major|minor|none",
    ),
    (Verb::Substitute, "substitute", " REF BASE"),
    (Verb::Unsubstitute, "unsubstitute", " BASE"),
    (Verb::Quit, "quit", ""),
];

/// What each palette verb does, as the palette's list says it.
const VERB_DESCS: &[(Verb, &str)] = &[
    (Verb::Package, "select a package"),
    (Verb::Channel, "select a channel of the selected package"),
    (Verb::Validate, "validate the whole catalog afresh"),
    (
        Verb::Reload,
        "read the catalog (or the templates) again from disk and apply the unsaved edits again",
    ),
    (
        Verb::Export,
        "write the selected channel's graph as Mermaid or DOT (an image's catalog: DIR copies it out)",
    ),
    (
        Verb::ExportChanges,
        "review mode: write the changes as Markdown for a pull request",
    ),
    (
        Verb::AddImage,
        "semver template: list a bundle image under a maturity",
    ),
    (
        Verb::MoveImage,
        "semver template: move a listed image to another maturity",
    ),
    (Verb::RemoveImage, "semver template: take an image out"),
    (
        Verb::Generate,
        "semver template: generate major or minor channels, or not",
    ),
    (
        Verb::ChannelPreference,
        "semver template: which generated channel is the default",
    ),
    (
        Verb::Substitute,
        "substitutes template: the bundle of image REF takes the place of bundle BASE",
    ),
    (
        Verb::Unsubstitute,
        "substitutes template: drop the substitution of bundle BASE",
    ),
    (Verb::Quit, "quit"),
];

impl Verb {
    /// What the verb does, in one line.
    pub fn desc(self) -> &'static str {
        VERB_DESCS
            .iter()
            .find(|(v, _)| *v == self)
            .map_or("", |(_, d)| d)
    }

    /// The verb's name on the palette's line.
    pub fn name(self) -> &'static str {
        VERBS
            .iter()
            .find(|(v, ..)| *v == self)
            .map_or("", |(_, n, _)| n)
    }

    /// What follows the name, with its leading space (empty when nothing does).
    pub fn args(self) -> &'static str {
        VERBS
            .iter()
            .find(|(v, ..)| *v == self)
            .map_or("", |(.., a)| a)
    }

    /// The verb a palette line starts with (`q` is short for `quit`).
    pub fn from_name(name: &str) -> Option<Verb> {
        if name == "q" {
            return Some(Verb::Quit);
        }
        VERBS.iter().find(|(_, n, _)| *n == name).map(|(v, ..)| *v)
    }

    /// Every verb, in the palette line's order.
    pub fn all() -> impl Iterator<Item = Verb> {
        VERBS.iter().map(|(v, ..)| *v)
    }
}

/// What the palette's line says it takes.
pub fn palette_hint() -> String {
    let own: Vec<String> = Verb::all()
        .map(|v| format!("{}{}", v.name(), v.args()))
        .collect();
    format!("{}, or a key's command by name", own.join(", "))
}

/// What a name the palette runs does (empty for anything else): a verb's or a command's line.
pub fn palette_desc(name: &str) -> &'static str {
    let name = name.trim_end();
    if let Some(v) = Verb::all().find(|v| v.name() == name) {
        return v.desc();
    }
    Command::from_name(name)
        .filter(|c| c.in_palette())
        .map_or("", Command::desc)
}

/// Every name the palette runs, its verbs first, with a space after those that take more.
pub fn palette_names() -> impl Iterator<Item = String> {
    Verb::all()
        .map(|v| {
            if v.args().is_empty() {
                v.name().to_string()
            } else {
                format!("{} ", v.name())
            }
        })
        .chain(
            Command::all()
                .filter(|c| c.in_palette())
                .map(|c| c.name().to_string()),
        )
}

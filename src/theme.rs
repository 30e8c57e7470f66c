//! The colour theme: a dark or light base, each role's colour overridable in `config.yaml`'s
//! `theme:` section, and no colour at all when `NO_COLOR` is set.

use std::fmt;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use fbc_core::catalog::Severity;
use fbc_core::catalog::yaml::typed;

/// What a colour is for. Every colour the view draws is one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The focused pane's border and title, the loading gauge.
    Focus,
    /// Keys in the footer, the help and dialogs.
    Key,
    Error,
    Warning,
    Info,
    /// Added objects and lines, gains, the channel head.
    Added,
    /// Removed objects and lines, losses.
    Removed,
    /// Greyed-out options, dropped bundles, context.
    Muted,
    /// Deprecated bundles, the diff's file names.
    Deprecated,
    /// The graph's replaces lanes.
    Lane,
    /// The graph's skips lanes.
    Skips,
    /// The status line and other notes that ask to be read.
    Notice,
    /// The background of the write preview's cursor line.
    Cursor,
}

impl Role {
    pub const ALL: [Role; 13] = [
        Role::Focus,
        Role::Key,
        Role::Error,
        Role::Warning,
        Role::Info,
        Role::Added,
        Role::Removed,
        Role::Muted,
        Role::Deprecated,
        Role::Lane,
        Role::Skips,
        Role::Notice,
        Role::Cursor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Focus => "focus",
            Role::Key => "key",
            Role::Error => "error",
            Role::Warning => "warning",
            Role::Info => "info",
            Role::Added => "added",
            Role::Removed => "removed",
            Role::Muted => "muted",
            Role::Deprecated => "deprecated",
            Role::Lane => "lane",
            Role::Skips => "skips",
            Role::Notice => "notice",
            Role::Cursor => "cursor",
        }
    }

    fn from_name(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// The base a theme starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Base {
    /// The 16 ANSI colours, for a dark background.
    Dark,
    /// Colours readable on a white background: no yellow, no white text.
    Light,
}

impl Base {
    pub fn name(self) -> &'static str {
        match self {
            Base::Dark => "dark",
            Base::Light => "light",
        }
    }

    fn color(self, role: Role) -> Color {
        match (self, role) {
            (Base::Dark, Role::Focus | Role::Key | Role::Lane) => Color::Cyan,
            (Base::Dark, Role::Error | Role::Removed) => Color::Red,
            (Base::Dark, Role::Warning | Role::Skips | Role::Notice) => Color::Yellow,
            (Base::Dark, Role::Info) => Color::Blue,
            (Base::Dark, Role::Added) => Color::Green,
            (Base::Dark, Role::Muted | Role::Cursor) => Color::DarkGray,
            (Base::Dark, Role::Deprecated) => Color::Magenta,
            (Base::Light, Role::Focus | Role::Key | Role::Lane | Role::Info) => Color::Blue,
            (Base::Light, Role::Error | Role::Removed) => Color::Rgb(0xb0, 0x00, 0x00),
            (Base::Light, Role::Warning | Role::Skips | Role::Notice) => {
                Color::Rgb(0x8a, 0x4b, 0x00)
            }
            (Base::Light, Role::Added) => Color::Rgb(0x00, 0x6b, 0x00),
            (Base::Light, Role::Muted) => Color::Rgb(0x6e, 0x6e, 0x6e),
            (Base::Light, Role::Deprecated) => Color::Magenta,
            (Base::Light, Role::Cursor) => Color::Rgb(0xdd, 0xdd, 0xdd),
        }
    }
}

/// Colours by role, or none when `color` is false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub base: Base,
    colors: [Color; Role::ALL.len()],
}

impl Theme {
    pub fn of(base: Base) -> Theme {
        Theme {
            color: true,
            base,
            colors: Role::ALL.map(|r| base.color(r)),
        }
    }

    pub fn dark() -> Theme {
        Theme::of(Base::Dark)
    }

    pub fn light() -> Theme {
        Theme::of(Base::Light)
    }

    /// No colour at all.
    pub fn plain() -> Theme {
        Theme {
            color: false,
            ..Theme::dark()
        }
    }

    /// The dark theme, without colour when `NO_COLOR` is set.
    pub fn from_env() -> Theme {
        Theme::dark().with_env()
    }

    /// `NO_COLOR`, when set and not empty, turns every colour off whatever the config says.
    pub fn with_env(self) -> Theme {
        Theme {
            color: self.color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            ..self
        }
    }

    pub fn color(&self, role: Role) -> Color {
        self.colors[role as usize]
    }

    /// The roles whose colour differs from the base's.
    pub fn overrides(&self) -> Vec<(Role, Color)> {
        Role::ALL
            .into_iter()
            .filter(|&r| self.color(r) != self.base.color(r))
            .map(|r| (r, self.color(r)))
            .collect()
    }

    /// The foreground of a role.
    pub fn role(&self, role: Role) -> Style {
        if self.color {
            Style::default().fg(self.color(role))
        } else {
            Style::default()
        }
    }

    /// The foreground a named ANSI colour stands for: the role it is the dark theme's colour of.
    pub fn fg(&self, c: Color) -> Style {
        let role = match c {
            Color::Cyan => Role::Key,
            Color::Red => Role::Removed,
            Color::Yellow => Role::Notice,
            Color::Blue => Role::Info,
            Color::Green => Role::Added,
            Color::DarkGray => Role::Muted,
            Color::Magenta => Role::Deprecated,
            _ if self.color => return Style::default().fg(c),
            _ => return Style::default(),
        };
        self.role(role)
    }

    pub fn focus(&self, focused: bool) -> Style {
        if focused {
            self.role(Role::Focus).add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        }
    }

    pub fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Error => self.role(Role::Error).add_modifier(Modifier::BOLD),
            Severity::Warning => self.role(Role::Warning),
            Severity::Info => self.role(Role::Info),
        }
    }

    /// The describing lines `fbc-edit info` prints.
    pub fn describe(&self) -> String {
        let mut out = format!("theme: {}", self.base.name());
        if !self.color {
            out.push_str(" (NO_COLOR is set: no colours)");
        }
        out.push('\n');
        for r in Role::ALL {
            let mark = if self.color(r) != self.base.color(r) {
                " (config)"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {:<11} {}{mark}\n",
                r.name(),
                color_name(self.color(r))
            ));
        }
        out
    }
}

/// A colour as the config file names it.
fn color_name(c: Color) -> String {
    match c {
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        other => other.to_string().to_lowercase(),
    }
}

/// One colour of the config file, parsed as ratatui parses colour names.
struct ColorValue(Color);

impl<'de> Deserialize<'de> for ColorValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse::<Color>().map(ColorValue).map_err(|_| {
            de::Error::custom(format!(
                "{s:?} is not a colour (a name such as red, darkgray or lightblue, an index 0-255, or #rrggbb)"
            ))
        })
    }
}

/// The `theme:` section: a base's name, or `{base, colors}`.
struct ThemeSpec(Theme);

impl<'de> Deserialize<'de> for ThemeSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpecVisitor)
    }
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = ThemeSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("dark, light, or a map with base and colors")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<ThemeSpec, E> {
        match s {
            "dark" => Ok(ThemeSpec(Theme::dark())),
            "light" => Ok(ThemeSpec(Theme::light())),
            _ => Err(E::unknown_variant(s, &["dark", "light"])),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ThemeSpec, A::Error> {
        let mut base = Base::Dark;
        let mut colors: Vec<(Role, Color)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "base" => base = map.next_value()?,
                "colors" => colors = map.next_value::<Colors>()?.0,
                other => return Err(de::Error::unknown_field(other, &["base", "colors"])),
            }
        }
        let mut theme = Theme::of(base);
        for (role, c) in colors {
            theme.colors[role as usize] = c;
        }
        Ok(ThemeSpec(theme))
    }
}

/// `colors:`, role names to colours.
struct Colors(Vec<(Role, Color)>);

impl<'de> Deserialize<'de> for Colors {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Colors;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of role names to colours")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Colors, A::Error> {
                const NAMES: &[&str] = &[
                    "focus",
                    "key",
                    "error",
                    "warning",
                    "info",
                    "added",
                    "removed",
                    "muted",
                    "deprecated",
                    "lane",
                    "skips",
                    "notice",
                    "cursor",
                ];
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let role = Role::from_name(&key)
                        .ok_or_else(|| de::Error::unknown_field(&key, NAMES))?;
                    out.push((role, map.next_value::<ColorValue>()?.0));
                }
                Ok(Colors(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The config file as far as the theme goes; its other sections are the keymap's.
#[derive(Deserialize)]
struct ThemeFile {
    #[serde(default)]
    theme: Option<ThemeSpec>,
}

/// The theme a config file's text asks for (before `NO_COLOR`), and what was wrong with it, by
/// line: with a bad value the dark theme is used.
pub fn from_config(text: &str, path: &str) -> (Theme, Option<String>) {
    match typed::parse::<Option<ThemeFile>>(text, path) {
        Ok(f) => (
            f.value
                .and_then(|f| f.theme)
                .map_or_else(Theme::dark, |t| t.0),
            None,
        ),
        Err(e) => (
            Theme::dark(),
            Some(format!(
                "{}: theme: {}; using the dark theme",
                e.place(),
                e.message
            )),
        ),
    }
}

/// The user's theme: the config file's, then `NO_COLOR`.
pub fn load() -> (Theme, Option<String>) {
    let (theme, warning) = match crate::tui::keymap::config_text() {
        Ok(Some((text, path))) => from_config(&text, &path),
        Ok(None) => (Theme::dark(), None),
        // The keymap reports a file it cannot read.
        Err(_) => (Theme::dark(), None),
    };
    (theme.with_env(), warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_name_alone() {
        let (t, w) = from_config("theme: light\n", "c.yaml");
        assert_eq!(w, None);
        assert_eq!(t, Theme::light());
        assert_eq!(t.color(Role::Error), Color::Rgb(0xb0, 0x00, 0x00));
    }

    #[test]
    fn no_theme_is_dark() {
        assert_eq!(from_config("keys: {}\n", "c.yaml"), (Theme::dark(), None));
        assert_eq!(from_config("", "c.yaml"), (Theme::dark(), None));
    }

    #[test]
    fn overrides_on_a_base() {
        let text = "keys: {}\ntheme:\n  base: light\n  colors:\n    error: magenta\n    focus: \"#102030\"\n";
        let (t, w) = from_config(text, "c.yaml");
        assert_eq!(w, None);
        assert_eq!(t.base, Base::Light);
        assert_eq!(t.color(Role::Error), Color::Magenta);
        assert_eq!(t.color(Role::Focus), Color::Rgb(0x10, 0x20, 0x30));
        assert_eq!(t.color(Role::Added), Theme::light().color(Role::Added));
        assert_eq!(t.overrides().len(), 2);
    }

    #[test]
    fn a_bad_colour_is_reported_with_its_line() {
        let text = "theme:\n  base: light\n  colors:\n    error: reddish\n";
        let (t, w) = from_config(text, "c.yaml");
        assert_eq!(t, Theme::dark());
        let w = w.expect("a warning");
        assert!(w.starts_with("c.yaml:4:"), "{w}");
        assert!(w.contains("\"reddish\" is not a colour"), "{w}");
        assert!(w.ends_with("using the dark theme"), "{w}");
    }

    #[test]
    fn unknown_roles_and_bases_are_reported() {
        let (_, w) = from_config("theme:\n  colors:\n    tree: red\n", "c.yaml");
        let w = w.expect("a warning");
        assert!(w.starts_with("c.yaml:3:") && w.contains("tree"), "{w}");
        let (_, w) = from_config("theme: solarized\n", "c.yaml");
        assert!(w.expect("a warning").contains("solarized"));
    }

    #[test]
    fn the_light_base_has_no_yellow_or_white() {
        let light = Theme::light();
        for r in Role::ALL {
            assert!(
                !matches!(
                    light.color(r),
                    Color::Yellow | Color::LightYellow | Color::White | Color::Gray
                ),
                "{}",
                r.name()
            );
        }
    }
}

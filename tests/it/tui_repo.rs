//! A repository opened in the terminal UI: the list of its operators with what `repo check`
//! found, the selected operator's problems errors first, the filter, checking again, and Enter
//! asking to open the operator's templates. Drawn on `TestBackend` and compared with snapshots.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fbc_core::catalog::{Diagnostic, Location, Severity};
use fbc_core::repo::{OperatorReport, Report};
use fbc_edit::tui::keymap::Keymap;
use fbc_edit::tui::repo::{Checking, RepoAction, RepoEffect, RepoList, update, view};

fn problem(severity: Severity, code: &'static str, file: &str, line: u32, msg: &str) -> Diagnostic {
    Diagnostic::new(code, severity, Location::new(file, line, 1), msg)
}

fn report() -> Report {
    let op = |name: &str, problems: Vec<Diagnostic>| OperatorReport {
        name: name.to_string(),
        problems,
    };
    Report {
        operators: vec![
            op(
                "ecr-secret-operator",
                vec![
                    problem(
                        Severity::Info,
                        "REPO999",
                        "operators/ecr-secret-operator/ci.yaml",
                        3,
                        "a note comes last",
                    ),
                    problem(
                        Severity::Error,
                        "REPO001",
                        "catalogs/v4.16/ecr-secret-operator/catalog.yaml",
                        40,
                        "differs from its rendering (make catalogs would change it)",
                    ),
                ],
            ),
            op("kubevirt-wol", vec![]),
            op(
                "rsct-operator",
                vec![problem(
                    Severity::Warning,
                    "REPO002",
                    "operators/rsct-operator/ci.yaml",
                    9,
                    "catalog name \"4.22\" is not an OpenShift version (vX.Y)",
                )],
            ),
            op("trident-operator", vec![]),
        ],
        repository: Vec::new(),
        fbc_operators: 4,
        catalogs: 11,
    }
}

fn key(m: &RepoList, code: KeyCode) -> RepoAction {
    RepoAction::Input(m.resolve(&KeyEvent::new(code, KeyModifiers::NONE)))
}

fn press(m: &mut RepoList, code: KeyCode) -> Vec<RepoEffect> {
    let a = key(m, code);
    update(m, a)
}

fn typed(m: &mut RepoList, text: &str) {
    for c in text.chars() {
        press(m, KeyCode::Char(c));
    }
}

fn screen(m: &mut RepoList, w: u16, h: u16) -> String {
    use std::fmt::Write as _;
    update(
        m,
        RepoAction::Resize {
            width: w,
            height: h,
        },
    );
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| view(m, f, &fbc_edit::tui::view::Theme::plain()))
        .unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let line: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

fn checked() -> RepoList {
    let mut m = RepoList::new(PathBuf::from("community-operators-prod"), Keymap::default());
    update(&mut m, RepoAction::Checked(Ok(Box::new(report()))));
    m
}

#[test]
fn each_operator_shows_its_status_and_the_selected_ones_problems_errors_first() {
    let mut m = RepoList::new(PathBuf::from("community-operators-prod"), Keymap::default());
    let before = screen(&mut m, 100, 20);
    assert!(before.contains("checking…"), "{before}");
    update(&mut m, RepoAction::Checked(Ok(Box::new(report()))));
    let s = screen(&mut m, 100, 20);
    insta::assert_snapshot!("repo_list_checked", s);
    // The error is listed before the note, whatever their files' order.
    let error = s.find("REPO001").unwrap();
    let note = s.find("REPO999").unwrap();
    assert!(error < note, "{s}");
    // Moving down shows the next operator's problems.
    press(&mut m, KeyCode::Char('j'));
    let s = screen(&mut m, 100, 20);
    assert!(s.contains("kubevirt-wol — 0 problems"), "{s}");
}

#[test]
fn enter_opens_the_selected_operator_and_coming_back_checks_again() {
    let mut m = checked();
    press(&mut m, KeyCode::Char('G'));
    assert_eq!(
        press(&mut m, KeyCode::Enter),
        vec![RepoEffect::Open("trident-operator".into())]
    );
    let fx = update(
        &mut m,
        RepoAction::Returned {
            operator: "trident-operator".into(),
            error: None,
        },
    );
    assert_eq!(fx, vec![RepoEffect::Check]);
    assert_eq!(m.checking, Checking::Running);
    // The selection stays on the operator when the new report arrives.
    update(&mut m, RepoAction::Checked(Ok(Box::new(report()))));
    assert_eq!(m.selected_row().unwrap().name, "trident-operator");
    assert_eq!(press(&mut m, KeyCode::Char('r')), vec![RepoEffect::Check]);
}

#[test]
fn the_filter_narrows_the_list_and_esc_while_typing_brings_back_the_one_before() {
    let mut m = checked();
    press(&mut m, KeyCode::Char('/'));
    typed(&mut m, "op");
    // Narrowed while typing: ecr-secret-operator, rsct-operator, trident-operator.
    assert_eq!(m.visible().len(), 3);
    press(&mut m, KeyCode::Enter);
    let s = screen(&mut m, 100, 20);
    assert!(s.contains("filter \"op\": 3 shown"), "{s}");
    assert!(!s.contains("kubevirt-wol"), "{s}");
    press(&mut m, KeyCode::Char('/'));
    typed(&mut m, "ZZZ");
    assert!(m.visible().is_empty());
    // Enter on an empty list opens nothing.
    press(&mut m, KeyCode::Esc);
    assert_eq!(m.visible().len(), 3);
    press(&mut m, KeyCode::Esc);
    assert_eq!(m.visible().len(), 4);
    press(&mut m, KeyCode::Char('/'));
    typed(&mut m, "nothing-matches");
    press(&mut m, KeyCode::Enter);
    assert!(press(&mut m, KeyCode::Enter).is_empty());
}

#[test]
fn help_lists_the_repo_layers_keys() {
    let mut m = checked();
    press(&mut m, KeyCode::Char('?'));
    let s = screen(&mut m, 100, 30);
    insta::assert_snapshot!("repo_list_help", s);
    assert!(s.contains("check every operator again"), "{s}");
    press(&mut m, KeyCode::Esc);
    assert!(!m.help);
}

#[test]
fn a_failed_check_says_why() {
    let mut m = RepoList::new(PathBuf::from("x"), Keymap::default());
    update(
        &mut m,
        RepoAction::Checked(Err("x: not a repository of operators".into())),
    );
    let s = screen(&mut m, 80, 12);
    assert!(
        s.contains("check failed") && s.contains("not a repository"),
        "{s}"
    );
}

#[test]
fn a_real_repository_lists_its_operators() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "testdata/real/redhat-openshift-ecosystem__community-operators-prod__repo-check-slice",
    );
    assert!(fbc_edit::tui::repo::is_repository(&root));
    assert!(!fbc_edit::tui::repo::is_repository(&root.join("operators")));
    let report = fbc_core::repo::check(&root, &Default::default()).unwrap();
    let mut m = RepoList::new(root, Keymap::default());
    update(&mut m, RepoAction::Checked(Ok(Box::new(report))));
    let names: Vec<&str> = m.rows.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"trident-operator"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    press(&mut m, KeyCode::Char('/'));
    typed(&mut m, "trident");
    press(&mut m, KeyCode::Enter);
    assert_eq!(
        press(&mut m, KeyCode::Enter),
        vec![RepoEffect::Open("trident-operator".into())]
    );
}

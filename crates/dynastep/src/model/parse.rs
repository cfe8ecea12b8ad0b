//! Reading TOML model files, with errors that point at the file, line and column.
//!
//! [`from_file`], [`from_str`] and their `_with_overrides` forms read a model in four stages, each
//! reporting every error it finds (not just the first):
//!
//! 1. **Syntax**: the text is parsed into a TOML document that remembers the byte span of every key
//!    and value.
//! 2. **Overrides**: `PATH=VALUE` strings from the command line (`--set`) are applied to the document
//!    (see [`from_str_with_overrides`]).
//! 3. **Types**: the document is deserialized into a [`Model`]; unknown fields, missing fields and
//!    values of the wrong type are reported with a list of the valid choices.
//! 4. **Meaning**: [`super::validate::check`] looks for unknown names, duplicates and out-of-range
//!    values; each problem is located at the span of the offending value.
//!
//! Errors are [`ModelError`]s, printed like compiler diagnostics:
//!
//! ```text
//! slider_crank.toml:27:10: error: joint `B`: unknown body `crnk`
//!    |
//! 27 | body_j = "crnk"
//!    |          ^^^^^^
//!    = help: did you mean `crank`? known bodies: `crank`, `rod`, `slider`, `ground`
//! ```
//!
//! [`json_schema`] gives the JSON Schema of the format (committed as `docs/model.schema.json`).

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::de::{DeArray, DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

use super::function::TaggedFunction;
use super::types::Model;
use super::validate::{self, suggest, PathSeg};

/// The `file` of errors located in a command-line override.
pub const COMMAND_LINE: &str = "<command line>";

/// Arrays of tables whose elements are addressed by their `name` in overrides, with the entity kind.
const NAMED_ARRAYS: [(&str, &str); 6] = [
    ("bodies", "body"),
    ("joints", "joint"),
    ("drivers", "driver"),
    ("forces", "force"),
    ("markers", "marker"),
    ("beams", "beam"),
];

/// Deepest nesting the span walkers descend to (the TOML parser bounds nesting of values; dotted keys
/// could nest deeper, but no model field is that deep).
const MAX_DEPTH: usize = 64;

/// Most segments in an override's path (deeper ones would only create nested tables that the model
/// cannot hold).
const MAX_OVERRIDE_DEPTH: usize = 16;

/// Most syntax errors reported for one file (later ones are mostly consequences of the first).
const MAX_SYNTAX_ERRORS: usize = 10;

/// One problem in a model file or override, with its location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// The file as given by the caller, or [`COMMAND_LINE`] for an override.
    pub file: String,
    /// Line, 1-based (0 when the error concerns the file as a whole, e.g. it cannot be read).
    pub line: usize,
    /// Column in characters, 1-based (0 when there is no position).
    pub column: usize,
    /// The entity concerned, e.g. ``joint `B` ``.
    pub entity: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it (may be empty).
    pub hint: String,
    /// The source line the error is on (the override's text for [`COMMAND_LINE`]); empty when unknown.
    pub source_line: String,
    /// Number of characters to underline from `column` (at least 1 when there is a source line).
    pub width: usize,
}

impl ModelError {
    /// An error with no position in a file (e.g. the file cannot be read).
    fn whole_file(file: &str, message: String, hint: String) -> Self {
        ModelError {
            file: file.to_string(),
            line: 0,
            column: 0,
            entity: None,
            message,
            hint,
            source_line: String::new(),
            width: 0,
        }
    }
}

/// Characters of a source line shown past the start of the marked span.
const SHOWN_SPAN: usize = 100;

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(f, ": error: ")?;
        if let Some(e) = &self.entity {
            write!(f, "{e}: ")?;
        }
        write!(f, "{}", self.message)?;
        let number = if self.line > 0 {
            self.line.to_string()
        } else {
            String::new()
        };
        let pad = " ".repeat(number.len().max(1));
        if self.line > 0 && !self.source_line.is_empty() {
            // A long line is shown as a window from its start to just past the marked span, the
            // marks cut to the window, so that a 100 kB formula does not flood the terminal.
            let start = self.column.saturating_sub(1);
            let shown = self.source_line.chars().count().min(start + SHOWN_SPAN);
            let line: String = self.source_line.chars().take(shown).collect();
            let cut = if shown < self.source_line.chars().count() {
                " …"
            } else {
                ""
            };
            // Keep tabs so that the caret lines up under the source line.
            let indent: String = line
                .chars()
                .take(start)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let marks = self.width.clamp(1, SHOWN_SPAN);
            write!(
                f,
                "\n{pad} |\n{number} | {line}{cut}\n{pad} | {indent}{}",
                "^".repeat(marks)
            )?;
        }
        if !self.hint.is_empty() {
            write!(f, "\n{pad} = help: {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelError {}

/// All the problems found in a model file: at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelErrors {
    /// The errors, in the order they occur in the file (command-line overrides last).
    pub errors: Vec<ModelError>,
}

impl ModelErrors {
    /// Number of errors.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether there are none (never the case for an error returned by this module).
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors in order.
    pub fn iter(&self) -> std::slice::Iter<'_, ModelError> {
        self.errors.iter()
    }
}

impl fmt::Display for ModelErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.errors.len() > 1 {
            write!(f, "\n\n{} errors", self.errors.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelErrors {}

impl IntoIterator for ModelErrors {
    type Item = ModelError;
    type IntoIter = std::vec::IntoIter<ModelError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl<'a> IntoIterator for &'a ModelErrors {
    type Item = &'a ModelError;
    type IntoIter = std::slice::Iter<'a, ModelError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl From<ModelError> for ModelErrors {
    fn from(e: ModelError) -> Self {
        ModelErrors { errors: vec![e] }
    }
}

/// Reads a model from TOML text; `file` names the text in error messages.
///
/// # Errors
/// [`ModelErrors`] listing every syntax error, type error (unknown or missing field, wrong type) and
/// semantic error (see [`super::validate::check`]) found, each with its line and column in `text`.
pub fn from_str(text: &str, file: &str) -> Result<Model, ModelErrors> {
    from_str_with_overrides(text, file, &[])
}

/// Reads a model file.
///
/// # Errors
/// As [`from_str`]; also when the file cannot be read or is not UTF-8.
pub fn from_file(path: &Path) -> Result<Model, ModelErrors> {
    from_file_with_overrides(path, &[])
}

/// Reads a model file and applies command-line overrides (see [`from_str_with_overrides`]).
///
/// # Errors
/// As [`from_str_with_overrides`]; also when the file cannot be read or is not UTF-8.
pub fn from_file_with_overrides(path: &Path, overrides: &[String]) -> Result<Model, ModelErrors> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        ModelError::whole_file(
            &file,
            format!("cannot read the model file: {e}"),
            "check the path and the file's permissions".into(),
        )
    })?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            let src = Sources {
                file: &file,
                text: valid,
                overrides: Vec::new(),
            };
            let mut err = src.error(
                valid.len()..valid.len(),
                None,
                "the file is not valid UTF-8".into(),
                "save the model file with UTF-8 encoding".into(),
            );
            err.width = 1;
            return Err(err.into());
        }
    };
    from_str_with_overrides(text, &file, overrides)
}

/// Reads a model from TOML text after applying overrides.
///
/// Each override is `PATH=VALUE`, as typed after `--set` on the command line:
///
/// - `PATH` is a dotted key. After the name of an array of tables (`bodies`, `joints`, `drivers`,
///   `forces`, `markers`) the next segment is the `name` of an element: `bodies.crank.theta`,
///   `joints.B.length`, `forces.spring.stiffness`. Other segments are table keys
///   (`solver.params.rho_inf`, `gravity`); a segment may be quoted (`ground.points."A.1"`).
/// - `VALUE` is a TOML value (`0.5`, `\[0, -9.81\]`, `"hht"`, `{ type = "ramp", slope = 1 }`); a value
///   that is not valid TOML is taken as a string, so `solver.scheme=hht` works.
///
/// Overrides are applied in order to the parsed document before it is deserialized, so their values
/// are type-checked like the file's; missing keys and tables are created.
///
/// # Errors
/// As [`from_str`]; in addition, an override that is not `PATH=VALUE`, names an element that does not
/// exist, or descends into a value that is not a table is reported with file [`COMMAND_LINE`], the
/// override's text and a hint listing the known names. Errors in an override's value are reported
/// at the override.
pub fn from_str_with_overrides(
    text: &str,
    file: &str,
    overrides: &[String],
) -> Result<Model, ModelErrors> {
    let src = Sources::new(file, text, overrides);

    // 1. Syntax.
    let (doc, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        return Err(src.syntax_errors(&syntax));
    }
    let root_span = doc.span();
    let mut root = doc.into_inner();

    // 2. Overrides.
    src.apply_overrides(&mut root, overrides)?;
    let root = Spanned::new(root_span, root);

    // 3. Types.
    let model = match deserialize(&root) {
        Ok(m) => m,
        Err(errs) => return Err(src.type_errors(&root, &errs)),
    };

    // 4. Meaning.
    let issues = validate::check(&model);
    if issues.is_empty() {
        return Ok(model);
    }
    Err(src.issue_errors(&root, issues))
}

/// The kinds of named elements a run-time message may name (``joint `B` ``), with their arrays.
const NAMED_ELEMENTS: [(&str, &str); 5] = [
    ("body", "bodies"),
    ("joint", "joints"),
    ("driver", "drivers"),
    ("force", "forces"),
    ("marker", "markers"),
];

/// The elements `message` names as ``kind `name` ``, in the order they occur: (kind, name).
fn named_elements(message: &str) -> Vec<(usize, &'static str, &str)> {
    let mut found = Vec::new();
    for (kind, _) in NAMED_ELEMENTS {
        let opening = format!("{kind} `");
        let mut from = 0;
        while let Some(i) = message[from..].find(&opening) {
            let start = from + i + opening.len();
            let before = message[..from + i].chars().next_back();
            let Some(len) = message[start..].find('`') else {
                break;
            };
            // A whole word: "rigid body `a`" counts, "nobody `a`" does not.
            if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
                found.push((from + i, kind, &message[start..start + len]));
            }
            from = start + len;
        }
    }
    found.sort_by_key(|(at, ..)| *at);
    found
}

/// Where the model element that a run-time `message` names is written: an error located at the
/// `name` of the first element the message names as ``kind `name` `` (body, joint, driver, force
/// or marker; in the planar arrays or under `[spatial]`), carrying `message` and `hint`, for
/// failures found after the file was read (assembly, initial values, non-finite forces).
/// `None` when the message names no element of `text`, or `text` is not TOML.
pub fn locate_entity(text: &str, file: &str, message: &str, hint: &str) -> Option<ModelError> {
    let (doc, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        return None;
    }
    let root = doc;
    for (_, kind, name) in named_elements(message) {
        let array = NAMED_ELEMENTS.iter().find(|(k, _)| *k == kind)?.1;
        for spatial in [false, true] {
            let mut path = Vec::new();
            let mut table = root.get_ref();
            if spatial {
                path.push(PathSeg::Key("spatial".into()));
                let Some(t) = table.get("spatial").and_then(|v| v.get_ref().as_table()) else {
                    continue;
                };
                table = t;
            }
            let elems = table.get(array).and_then(|v| v.get_ref().as_array());
            let Some(i) = element_names(elems).iter().position(|n| n == name) else {
                continue;
            };
            path.extend([
                PathSeg::Key(array.into()),
                PathSeg::Index(i),
                PathSeg::Key("name".into()),
            ]);
            let span = locate(&root, &path, false);
            let src = Sources::new(file, text, &[]);
            // The message names the element already: no entity prefix.
            return Some(src.error(span, None, message.into(), hint.into()));
        }
    }
    let path = equation_reference(message)?;
    exists(&root, &path).then(|| {
        let span = locate(&root, &path, false);
        Sources::new(file, text, &[]).error(span, None, message.into(), hint.into())
    })
}

/// The `[equations]` expression a message names as `` `forces[0]` ``, `` `mass[1][0]` `` or
/// `` `constraints[2]` ``: its path in the file.
fn equation_reference(message: &str) -> Option<Vec<PathSeg>> {
    for key in ["mass", "forces", "constraints"] {
        let Some(i) = message.find(&format!("`{key}[")) else {
            continue;
        };
        let rest = &message[i + 1 + key.len()..];
        let indices = &rest[..rest.find('`')?];
        let mut path = vec![PathSeg::Key("equations".into()), PathSeg::Key(key.into())];
        for part in indices.split(']').filter(|p| !p.is_empty()) {
            path.push(PathSeg::Index(part.strip_prefix('[')?.parse().ok()?));
        }
        return Some(path);
    }
    None
}

/// Whether the document `root` has a value at `path`.
fn exists(root: &Spanned<DeTable<'_>>, path: &[PathSeg]) -> bool {
    let mut table = Some(root.get_ref());
    let mut array: Option<&DeArray<'_>> = None;
    for seg in path {
        let next = match (seg, table, array) {
            (PathSeg::Key(k), Some(t), _) => t.get(k.as_str()),
            (PathSeg::Index(i), _, Some(a)) => a.get(*i),
            _ => None,
        };
        let Some(v) = next else { return false };
        table = v.get_ref().as_table();
        array = v.get_ref().as_array();
    }
    true
}

/// An error located at the value of the dotted `path` in the model `text` (e.g.
/// `solver.output_interval`, `solver.step.rtol`), carrying `message` and `hint`: for a run
/// setting whose value the file gives but the run cannot use (checked after the file was read,
/// with the other settings). `None` when the file does not give that value or is not TOML.
pub fn locate_path(
    text: &str,
    file: &str,
    path: &str,
    message: &str,
    hint: &str,
) -> Option<ModelError> {
    let (root, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        return None;
    }
    let keys: Vec<&str> = path.split('.').collect();
    let (last, parents) = keys.split_last()?;
    let mut table = root.get_ref();
    for k in parents {
        table = table.get(*k)?.get_ref().as_table()?;
    }
    table.get(*last)?;
    let segs: Vec<PathSeg> = keys.iter().map(|k| PathSeg::Key((*k).into())).collect();
    let span = locate(&root, &segs, false);
    Some(Sources::new(file, text, &[]).error(span, None, message.into(), hint.into()))
}

/// The JSON Schema of the model file format, generated from [`Model`] (draft 2020-12).
pub fn json_schema() -> serde_json::Value {
    schema().clone()
}

/// The schema, generated once per process: every parse checks array lengths against it, and
/// generating it took about 2 million instructions, most of a small model's parse (callgrind,
/// the pendulum, 2026-11-29).
fn schema() -> &'static serde_json::Value {
    static SCHEMA: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(Model).into())
}

// ---------------------------------------------------------------------------------------------------
// Locations.

/// The texts errors can point into. Spans are byte offsets in a virtual concatenation: the file text,
/// then each override at its base offset.
struct Sources<'a> {
    file: &'a str,
    text: &'a str,
    /// (base offset, text) of each override.
    overrides: Vec<(usize, &'a str)>,
}

impl<'a> Sources<'a> {
    /// The file's text followed by each override, at base offsets one past the previous text.
    fn new(file: &'a str, text: &'a str, overrides: &'a [String]) -> Self {
        let mut src = Sources {
            file,
            text,
            overrides: Vec::new(),
        };
        let mut base = text.len() + 1;
        for o in overrides {
            src.overrides.push((base, o.as_str()));
            base += o.len() + 1;
        }
        src
    }

    /// Applies every override in order; the errors of all that fail.
    fn apply_overrides(
        &self,
        root: &mut DeTable<'a>,
        overrides: &'a [String],
    ) -> Result<(), ModelErrors> {
        let mut errors = Vec::new();
        for (k, o) in overrides.iter().enumerate() {
            let base = self.overrides[k].0;
            if let Err((span, message, hint)) = apply_override(root, o, base) {
                errors.push(self.error(span, None, message, hint));
            }
        }
        if !errors.is_empty() {
            return Err(ModelErrors { errors });
        }
        Ok(())
    }

    /// The deserialization errors, located, in file order, without repeats.
    fn type_errors(&self, root: &Spanned<DeTable<'_>>, errs: &[DeError]) -> ModelErrors {
        let mut errors: Vec<(usize, ModelError)> = errs
            .iter()
            .map(|e| match e {
                DeError::Toml(e) => self.de_error(e, root, 0, 0..0),
                DeError::TooLong { span, max, found } => (
                    span.start,
                    self.error(
                        span.clone(),
                        entity_at(root, span.start),
                        format!("expected an array of {max} numbers, found {found} elements"),
                        too_long_hint(root, span, *found),
                    ),
                ),
            })
            .collect();
        errors.sort_by_key(|(s, _)| *s);
        errors.dedup_by(|a, b| a.1 == b.1);
        ModelErrors {
            errors: errors.into_iter().map(|(_, e)| e).collect(),
        }
    }

    /// The semantic issues, located in the document, in file order.
    fn issue_errors(
        &self,
        root: &Spanned<DeTable<'_>>,
        issues: Vec<validate::Issue>,
    ) -> ModelErrors {
        let mut located: Vec<(usize, ModelError)> = issues
            .into_iter()
            .map(|issue| {
                let span = locate(root, &issue.path, issue.at_key);
                let e = self.error(span.clone(), issue.entity, issue.message, issue.hint);
                (span.start, e)
            })
            .collect();
        located.sort_by_key(|(s, _)| *s);
        ModelErrors {
            errors: located.into_iter().map(|(_, e)| e).collect(),
        }
    }

    /// Builds an error located at `span`.
    fn error(
        &self,
        span: Range<usize>,
        entity: Option<String>,
        message: String,
        hint: String,
    ) -> ModelError {
        let (file, text, start) = match self
            .overrides
            .iter()
            .rev()
            .find(|(base, _)| span.start >= *base)
        {
            Some(&(base, o)) => (COMMAND_LINE, o, span.start - base),
            None => (self.file, self.text, span.start),
        };
        let end = span.end.saturating_sub(span.start - start).max(start);
        let start = floor_char_boundary(text, start);
        let end = floor_char_boundary(text, end).max(start);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[..start].matches('\n').count() + 1;
        let column = text[line_start..start].chars().count() + 1;
        let source_line = text[line_start..line_end]
            .trim_end_matches('\r')
            .to_string();
        let width = text[start..end.min(line_end)].chars().count().max(1);
        ModelError {
            file: file.to_string(),
            line,
            column,
            entity,
            message,
            hint,
            source_line,
            width,
        }
    }

    fn syntax_errors(&self, errs: &[toml::de::Error]) -> ModelErrors {
        let mut located: Vec<(usize, ModelError)> = errs
            .iter()
            .map(|e| {
                let span = e.span().unwrap_or(0..0);
                let hint = syntax_hint(e.message());
                (
                    span.start,
                    self.error(span, None, e.message().to_string(), hint),
                )
            })
            .collect();
        located.sort_by_key(|(s, _)| *s);
        // Later errors on the same line are usually consequences of the first.
        located.dedup_by(|a, b| a.1.line == b.1.line);
        located.truncate(MAX_SYNTAX_ERRORS);
        ModelErrors {
            errors: located.into_iter().map(|(_, e)| e).collect(),
        }
    }

    /// Converts a deserialization error into a located error with a hint; returns its start offset
    /// for sorting.
    fn de_error(
        &self,
        e: &toml::de::Error,
        root: &Spanned<DeTable<'_>>,
        depth: usize,
        fallback: Range<usize>,
    ) -> (usize, ModelError) {
        let mut span = e.span().unwrap_or(fallback);
        let raw = e.message();
        let node = find_node(root, &span);
        let (message, hint) = if raw.starts_with("data did not match any variant of untagged enum")
        {
            // A time function: say what is wrong with it rather than that it matched no form.
            match node.and_then(function_problem) {
                Some(FunctionProblem::Inner(inner, at)) if depth < 2 => {
                    return self.de_error(&inner, root, depth + 1, at)
                }
                problem => function_message(problem, &mut span),
            }
        } else if let Some(rest) = raw.strip_prefix("unknown field `") {
            unknown_field_message(rest, node, &mut span)
        } else if let Some(rest) = raw.strip_prefix("unknown variant `") {
            unknown_variant_message(rest, node, &mut span)
        } else if let Some(rest) = raw.strip_prefix("missing field `") {
            let name = rest.split('`').next().unwrap_or_default();
            (
                format!("missing field `{name}`"),
                format!("add `{name} = ...` to this table (see docs/model-format.md)"),
            )
        } else {
            // Serde reports type errors inside internally tagged tables without a position, so they
            // land on the table: find the value that the message describes.
            if let Some(v) = node.filter(|n| n.get_ref().is_table() || n.get_ref().is_array()) {
                if let Some(at) = described_value(v, raw, 0) {
                    span = at;
                }
            }
            (plain_type_message(raw), type_hint(raw))
        };
        let entity = entity_at(root, span.start);
        (span.start, self.error(span, entity, message, hint))
    }
}

/// Message and hint for a value that is no time function (`problem` is not an inner error to
/// report instead); moves `span` to the offending value.
fn function_message(problem: Option<FunctionProblem>, span: &mut Range<usize>) -> (String, String) {
    match problem {
        Some(FunctionProblem::NotFunction {
            span: at,
            type_str,
            text,
        }) => {
            *span = at;
            (
                format!(
                    "a time function is a number or a table with a `type`, not {}",
                    article(type_str)
                ),
                match text {
                    Some(t) => {
                        format!("for a formula write `{{ type = \"expression\", expr = {t:?} }}`")
                    }
                    None => FUNCTION_HINT.to_string(),
                },
            )
        }
        _ => (
            "invalid time function".to_string(),
            FUNCTION_HINT.to_string(),
        ),
    }
}

/// Message and hint for serde's ``unknown field `x`, expected …`` (`rest` follows the first
/// backtick); moves `span` to the key.
fn unknown_field_message(
    rest: &str,
    node: Option<&Spanned<DeValue<'_>>>,
    span: &mut Range<usize>,
) -> (String, String) {
    let (name, expected) = split_expected(rest);
    if let Some(key) = node.and_then(|n| key_span_in(n, &name)) {
        *span = key;
    }
    let hint = if expected.is_empty() {
        "this table has no fields".to_string()
    } else {
        suggest(
            &name,
            &expected.iter().map(String::as_str).collect::<Vec<_>>(),
            "valid fields",
        )
    };
    (format!("unknown field `{name}`"), hint)
}

/// Message and hint for serde's ``unknown variant `x`, expected …`` (`rest` follows the first
/// backtick); moves `span` to the table's `type` value.
fn unknown_variant_message(
    rest: &str,
    node: Option<&Spanned<DeValue<'_>>>,
    span: &mut Range<usize>,
) -> (String, String) {
    let (name, expected) = split_expected(rest);
    // Internally tagged enums report at the table: point at its `type` value instead.
    if let Some(DeValue::Table(t)) = node.map(|n| n.get_ref()) {
        if let Some(v) = t.get("type") {
            *span = v.span();
        }
    }
    (
        format!("unknown type `{name}`"),
        suggest(
            &name,
            &expected.iter().map(String::as_str).collect::<Vec<_>>(),
            "valid values",
        ),
    )
}

/// The span of the first value under `node` that matches the unexpected value in a serde message
/// such as ``invalid type: string "x", expected f64`` or `invalid length 3, expected …`.
fn described_value(
    node: &Spanned<DeValue<'_>>,
    message: &str,
    depth: usize,
) -> Option<Range<usize>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let children: Vec<&Spanned<DeValue<'_>>> = match node.get_ref() {
        DeValue::Table(t) => t.values().collect(),
        DeValue::Array(a) => a.iter().collect(),
        _ => return None,
    };
    let matches = |v: &DeValue<'_>| -> bool {
        if let Some(rest) = message.strip_prefix("invalid length ") {
            let n = rest.split(',').next().unwrap_or_default();
            return matches!(v, DeValue::Array(a) if a.len().to_string() == n);
        }
        let Some(rest) = message.strip_prefix("invalid type: ") else {
            return false;
        };
        let unexpected = rest.rsplit_once(", expected").map_or(rest, |(u, _)| u);
        match v {
            DeValue::String(s) => unexpected == format!("string {:?}", s.as_ref()),
            DeValue::Integer(i) => unexpected == format!("integer `{}`", i.as_str()),
            DeValue::Float(_) => unexpected.starts_with("floating point"),
            DeValue::Boolean(b) => unexpected == format!("boolean `{b}`"),
            DeValue::Array(_) => unexpected == "sequence",
            DeValue::Table(_) => unexpected == "map",
            DeValue::Datetime(_) => false,
        }
    };
    if let Some(c) = children.iter().find(|c| matches(c.get_ref())) {
        return Some(c.span());
    }
    children
        .iter()
        .find_map(|c| described_value(c, message, depth + 1))
}

/// Fields whose value is a time function.
const FUNCTION_FIELDS: [&str; 5] = ["function", "actuator", "fx", "fy", "torque"];

/// What is wrong with a time function.
enum FunctionProblem {
    /// A table that is not a valid tagged function: why, and the table's span.
    Inner(toml::de::Error, Range<usize>),
    /// Neither a number nor a table.
    NotFunction {
        span: Range<usize>,
        type_str: &'static str,
        text: Option<String>,
    },
}

/// Finds the invalid time function at `node`: the node itself, or (for an error reported at the
/// table of a force, whose fields serde buffers without positions) one of its function fields.
fn function_problem(node: &Spanned<DeValue<'_>>) -> Option<FunctionProblem> {
    fn candidates<'d, 'i>(node: &'d Spanned<DeValue<'i>>, out: &mut Vec<&'d Spanned<DeValue<'i>>>) {
        match node.get_ref() {
            DeValue::Table(t) if FUNCTION_FIELDS.iter().any(|f| t.contains_key(*f)) => {
                out.extend(FUNCTION_FIELDS.iter().filter_map(|f| t.get(*f)));
            }
            DeValue::Array(a) if a.iter().any(|x| x.get_ref().is_table()) => {
                for x in a.iter() {
                    candidates(x, out);
                }
            }
            _ => out.push(node),
        }
    }
    let mut found = Vec::new();
    candidates(node, &mut found);
    for c in found {
        match c.get_ref() {
            DeValue::Integer(_) | DeValue::Float(_) => {}
            DeValue::Table(_) => {
                if let Err(e) = TaggedFunction::deserialize(ValueDeserializer::from(c.clone())) {
                    return Some(FunctionProblem::Inner(e, c.span()));
                }
            }
            other => {
                return Some(FunctionProblem::NotFunction {
                    span: c.span(),
                    type_str: other.type_str(),
                    text: other.as_str().map(str::to_string),
                })
            }
        }
    }
    None
}

const FUNCTION_HINT: &str = "write a constant such as `1.5` or a table such as `{ type = \"harmonic\", amplitude = 1.0, omega = 2.0 }`; forms: constant, harmonic, ramp, smooth_step, table, expression (see docs/model-format.md)";

fn article(type_str: &str) -> String {
    match type_str.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_str}"),
        _ => format!("a {type_str}"),
    }
}

/// Splits "name`, expected one of `a`, `b`" into the name and the expected names.
fn split_expected(rest: &str) -> (String, Vec<String>) {
    let mut parts = rest.splitn(2, '`');
    let name = parts.next().unwrap_or_default().to_string();
    let tail = parts.next().unwrap_or_default();
    let expected = match tail.find("expected") {
        Some(i) => tail[i..]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect(),
        None => Vec::new(),
    };
    (name, expected)
}

fn syntax_hint(message: &str) -> String {
    let m = message.to_ascii_lowercase();
    if m.contains("must be quoted") {
        "put text values in double quotes, e.g. `body_i = \"crank\"`".into()
    } else if m.contains("duplicate key") {
        "each key may appear only once in a table".into()
    } else if m.contains("unclosed array table") {
        "close a table-array header with `]]`, e.g. `[[bodies]]`".into()
    } else if m.contains("unclosed table") {
        "close a table header with `]`, e.g. `[solver]`".into()
    } else if m.contains("unclosed array") || m.contains("between array elements") {
        "separate array elements with `,` and close the array with `]`".into()
    } else if m.contains("unclosed")
        || m.contains("invalid basic string")
        || m.contains("invalid literal string")
    {
        "close the string or table on the same line".into()
    } else {
        "check the TOML syntax here (https://toml.io)".into()
    }
}

/// The hint for an array with more numbers than its field takes: a three-component top-level
/// `gravity` is a spatial model's, which belongs in the `[spatial]` table.
fn too_long_hint(root: &Spanned<DeTable<'_>>, span: &Range<usize>, found: usize) -> String {
    let top_gravity = root
        .get_ref()
        .get("gravity")
        .is_some_and(|g| g.span() == *span);
    if top_gravity && found == 3 {
        "the top-level `gravity` is a planar model's (gx, gy); a spatial model gives `gravity = [gx, gy, gz]` in its [spatial] table".into()
    } else {
        "write two numbers, e.g. `[0.0, 1.0]`".into()
    }
}

fn type_hint(message: &str) -> String {
    let expected = message.rsplit("expected ").next().unwrap_or_default();
    if message.starts_with("invalid length") || expected.contains("array of length 2") {
        "write two numbers, e.g. `[0.0, 1.0]`".into()
    } else if expected == "f64" || expected == "f32" {
        "write a number, e.g. `1.0`".into()
    } else if ["usize", "u64", "u32", "u8", "i64", "i32"].contains(&expected) {
        "write a non-negative whole number, e.g. `25`".into()
    } else if expected.contains("string") {
        "write a quoted string, e.g. `\"crank\"`".into()
    } else if expected.contains("sequence") || expected.contains("array") {
        "write an array, e.g. `[\"x\", \"y\"]`".into()
    } else if expected.contains("map") || expected.contains("struct") {
        "write a table".into()
    } else {
        "see docs/model-format.md for the expected value".into()
    }
}

/// Rewords serde's `invalid type: string "x", expected f64` as `expected a number, found string "x"`.
fn plain_type_message(raw: &str) -> String {
    let Some(rest) = raw.strip_prefix("invalid type: ") else {
        return raw.to_string();
    };
    let Some((found, expected)) = rest.rsplit_once(", expected ") else {
        return raw.to_string();
    };
    let expected = match expected {
        "f64" | "f32" => "a number",
        "usize" | "u64" | "u32" | "u16" | "u8" => "a non-negative whole number",
        "i64" | "i32" => "a whole number",
        "a sequence" => "an array",
        "a map" => "a table",
        e if e.starts_with("struct ") || e.starts_with("internally tagged enum") => "a table",
        e if e.starts_with("enum ") || e.starts_with("variant identifier") => "a string",
        e => e,
    };
    let found = match found {
        "sequence" => "an array".to_string(),
        "map" => "a table".to_string(),
        f => f.to_string(),
    };
    format!("expected {expected}, found {found}")
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The deepest node whose span is `span`.
fn find_node<'d, 'i>(
    root: &'d Spanned<DeTable<'i>>,
    span: &Range<usize>,
) -> Option<&'d Spanned<DeValue<'i>>> {
    fn walk<'d, 'i>(
        v: &'d Spanned<DeValue<'i>>,
        span: &Range<usize>,
        depth: usize,
    ) -> Option<&'d Spanned<DeValue<'i>>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let inner = match v.get_ref() {
            DeValue::Table(t) => t.values().find_map(|x| walk(x, span, depth + 1)),
            DeValue::Array(a) => a.iter().find_map(|x| walk(x, span, depth + 1)),
            _ => None,
        };
        inner.or_else(|| (v.span() == *span).then_some(v))
    }
    root.get_ref().values().find_map(|v| walk(v, span, 0))
}

/// The span of key `name` in table `node`.
fn key_span_in(node: &Spanned<DeValue<'_>>, name: &str) -> Option<Range<usize>> {
    match node.get_ref() {
        DeValue::Table(t) => t.get_key_value(name).map(|(k, _)| k.span()),
        _ => None,
    }
}

/// Whether any key or value in the subtree of `v` covers byte `pos`.
fn covers(v: &Spanned<DeValue<'_>>, pos: usize, depth: usize) -> bool {
    let span = v.span();
    if span.contains(&pos) || (span.start == pos && span.is_empty()) {
        return true;
    }
    if depth > MAX_DEPTH {
        return false;
    }
    match v.get_ref() {
        DeValue::Table(t) => t
            .iter()
            .any(|(k, x)| k.span().contains(&pos) || covers(x, pos, depth + 1)),
        DeValue::Array(a) => a.iter().any(|x| covers(x, pos, depth + 1)),
        _ => false,
    }
}

/// The entity whose part of the document covers byte `pos`: ``body `crank` ``, `solver`, ….
fn entity_at(root: &Spanned<DeTable<'_>>, pos: usize) -> Option<String> {
    for (key, value) in root.get_ref().iter() {
        let key = key.get_ref().as_ref();
        if let (Some((_, kind)), DeValue::Array(a)) = (
            NAMED_ARRAYS.iter().find(|(k, _)| *k == key),
            value.get_ref(),
        ) {
            for (i, elem) in a.iter().enumerate() {
                if covers(elem, pos, 0) {
                    let name = elem
                        .get_ref()
                        .get("name")
                        .and_then(|n| n.get_ref().as_str());
                    return Some(match name {
                        Some(n) if !n.is_empty() => format!("{kind} `{n}`"),
                        _ => format!("{key}[{i}]"),
                    });
                }
            }
        } else if (key == "solver" || key == "ground") && covers(value, pos, 0) {
            return Some(key.to_string());
        }
    }
    None
}

/// The span of the value at `path` (of its key when `at_key`), or of the deepest ancestor present.
fn locate(root: &Spanned<DeTable<'_>>, path: &[PathSeg], at_key: bool) -> Range<usize> {
    let mut span = root.span();
    let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
    let mut array: Option<&DeArray<'_>> = None;
    for seg in path {
        let next = match (seg, table, array) {
            (PathSeg::Key(k), Some(t), _) => {
                let kv = t.get_key_value(k.as_str());
                if let (true, Some((key, _))) =
                    (at_key && std::ptr::eq(seg, path.last().unwrap_or(seg)), kv)
                {
                    return key.span();
                }
                kv.map(|(_, v)| v)
            }
            (PathSeg::Index(i), _, Some(a)) => a.get(*i),
            _ => None,
        };
        let Some(v) = next else { break };
        span = v.span();
        table = v.get_ref().as_table();
        array = v.get_ref().as_array();
    }
    span
}

// ---------------------------------------------------------------------------------------------------
// Deserialization.

/// Deserializes the document; on failure deserializes each top-level key, and each element of each
/// array, on its own, to report every type error rather than the first.
fn deserialize(root: &Spanned<DeTable<'_>>) -> Result<Model, Vec<DeError>> {
    // Serde reads the first two elements of a `[f64; 2]` and ignores any more: check lengths first.
    let schema = schema();
    let mut too_long = Vec::new();
    let whole = Spanned::new(root.span(), DeValue::Table(root.get_ref().clone()));
    check_lengths(&whole, schema, schema, 0, &mut too_long);
    let first = match Model::deserialize(ValueDeserializer::from(whole)) {
        Ok(m) if too_long.is_empty() => return Ok(m),
        Ok(_) => return Err(too_long),
        Err(e) => DeError::Toml(e),
    };
    let one = |key: &Spanned<Cow<'_, str>>, value: Spanned<DeValue<'_>>| {
        let mut t = DeTable::new();
        t.insert(key.clone(), value);
        Model::deserialize(ValueDeserializer::from(Spanned::new(
            root.span(),
            DeValue::Table(t),
        )))
        .err()
    };
    let mut errors = too_long;
    for (key, value) in root.get_ref().iter() {
        match value.get_ref() {
            DeValue::Array(a)
                if NAMED_ARRAYS
                    .iter()
                    .any(|(k, _)| *k == key.get_ref().as_ref()) =>
            {
                for elem in a.iter() {
                    let mut single = DeArray::new();
                    single.push(elem.clone());
                    // Errors serde raises outside the toml deserializer (in buffered, internally tagged
                    // tables) get the array's span: make that the element's.
                    errors.extend(
                        one(key, Spanned::new(elem.span(), DeValue::Array(single)))
                            .map(DeError::Toml),
                    );
                }
            }
            _ => errors.extend(one(key, value.clone()).map(DeError::Toml)),
        }
    }
    if errors.is_empty() {
        errors.push(first);
    }
    Err(errors)
}

/// A type error: from the toml crate, or an array longer than its schema allows.
enum DeError {
    Toml(toml::de::Error),
    TooLong {
        span: Range<usize>,
        max: u64,
        found: usize,
    },
}

/// The concrete schemas (objects or arrays) among the alternatives of `schema` that fit `value`:
/// follows `$ref`, and picks among `anyOf`/`oneOf` alternatives by type and by the `type` tag of a
/// table.
fn fitting<'s>(
    schema: &'s serde_json::Value,
    root: &'s serde_json::Value,
    value: &DeValue<'_>,
    depth: usize,
    out: &mut Vec<&'s serde_json::Value>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(r) = schema.get("$ref").and_then(|r| r.as_str()) {
        if let Some(target) = r
            .strip_prefix("#/$defs/")
            .and_then(|n| root.get("$defs")?.get(n))
        {
            fitting(target, root, value, depth + 1, out);
        } else if r == "#" {
            fitting(root, root, value, depth + 1, out);
        }
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = schema.get(key).and_then(|a| a.as_array()) {
            for alt in alts {
                fitting(alt, root, value, depth + 1, out);
            }
            return;
        }
    }
    let has_type = |t: &str| match schema.get("type") {
        Some(serde_json::Value::String(s)) => s == t,
        Some(serde_json::Value::Array(a)) => a.iter().any(|x| x.as_str() == Some(t)),
        _ => false,
    };
    match value {
        DeValue::Array(_) if has_type("array") => out.push(schema),
        DeValue::Table(t) if has_type("object") => {
            let tag = schema
                .get("properties")
                .and_then(|p| p.get("type"))
                .and_then(|t| t.get("const"))
                .and_then(|c| c.as_str());
            let given = t.get("type").and_then(|v| v.get_ref().as_str());
            if tag.is_none() || tag == given {
                out.push(schema);
            }
        }
        _ => {}
    }
}

/// Reports arrays longer than the `maxItems` of their schema.
fn check_lengths(
    value: &Spanned<DeValue<'_>>,
    schema: &serde_json::Value,
    root: &serde_json::Value,
    depth: usize,
    out: &mut Vec<DeError>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut schemas = Vec::new();
    fitting(schema, root, value.get_ref(), 0, &mut schemas);
    // Ambiguous (several alternatives fit): leave it to serde.
    let [schema] = schemas[..] else { return };
    match value.get_ref() {
        DeValue::Array(a) => {
            if let Some(max) = schema.get("maxItems").and_then(|m| m.as_u64()) {
                if a.len() as u64 > max {
                    out.push(DeError::TooLong {
                        span: value.span(),
                        max,
                        found: a.len(),
                    });
                }
            }
            if let Some(items) = schema.get("items") {
                for x in a.iter() {
                    check_lengths(x, items, root, depth + 1, out);
                }
            }
        }
        DeValue::Table(t) => {
            for (k, x) in t.iter() {
                let sub = schema
                    .get("properties")
                    .and_then(|p| p.get(k.get_ref().as_ref()))
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(sub) = sub {
                    check_lengths(x, sub, root, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------------
// Overrides.

/// An error in an override: span (virtual offsets), message, hint.
type OverrideError = (Range<usize>, String, String);

/// Splits `PATH=VALUE` into path segments with their spans (relative to the override) and the offset
/// of the value.
/// Path segments of an override with their spans in the override's text.
type OverridePath = Vec<(String, Range<usize>)>;

fn split_override(o: &str) -> Result<(OverridePath, usize), OverrideError> {
    let usage = "write PATH=VALUE, e.g. `solver.dt=1e-4` or `bodies.crank.theta=0.5`".to_string();
    let mut segs = Vec::new();
    let bytes = o.as_bytes();
    let mut i = 0;
    loop {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        let start = i;
        let name = if bytes.get(i) == Some(&b'"') {
            let Some(close) = o[i + 1..].find('"') else {
                return Err((
                    start..o.len(),
                    "unclosed quote in the override's path".into(),
                    usage,
                ));
            };
            i += close + 2;
            o[start + 1..i - 1].to_string()
        } else {
            while i < bytes.len() && !matches!(bytes[i], b'.' | b'=' | b'"') {
                i += 1;
            }
            o[start..i].trim().to_string()
        };
        if name.is_empty() && bytes.get(start) != Some(&b'"') {
            return Err((
                start..(start + 1).min(o.len()).max(start),
                "empty key in the override's path".into(),
                usage,
            ));
        }
        segs.push((name, start..i));
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'.') => i += 1,
            Some(b'=') => return Ok((segs, i + 1)),
            _ => return Err((0..o.len(), format!("`{o}` is not an override"), usage)),
        }
    }
}

/// Shifts every span in `v` by `by` bytes.
fn shift<'i>(v: Spanned<DeValue<'i>>, by: usize, depth: usize) -> Spanned<DeValue<'i>> {
    let s = v.span();
    let span = s.start + by..s.end + by;
    let inner = match v.into_inner() {
        DeValue::Array(a) if depth < MAX_DEPTH => {
            DeValue::Array(a.into_iter().map(|x| shift(x, by, depth + 1)).collect())
        }
        DeValue::Table(t) if depth < MAX_DEPTH => {
            let mut n = DeTable::new();
            for (k, x) in t {
                let ks = k.span();
                n.insert(
                    Spanned::new(ks.start + by..ks.end + by, k.into_inner()),
                    shift(x, by, depth + 1),
                );
            }
            DeValue::Table(n)
        }
        other => other,
    };
    Spanned::new(span, inner)
}

/// A table reached while walking an override's path, and the segments left to walk.
type Walk<'t, 'i, 's> = (&'t mut DeTable<'i>, &'s [(String, Range<usize>)]);

/// Applies override `o` (whose text starts at virtual offset `base`) to the document.
fn apply_override<'i>(
    root: &mut DeTable<'i>,
    o: &'i str,
    base: usize,
) -> Result<(), OverrideError> {
    let at = |r: &Range<usize>| r.start + base..r.end + base;
    let (segs, value_at) = split_override(o).map_err(|(r, m, h)| (at(&r), m, h))?;
    if segs.len() > MAX_OVERRIDE_DEPTH {
        return Err((
            at(&(0..value_at)),
            format!("the override's path has {} segments", segs.len()),
            format!("no field of a model is more than {MAX_OVERRIDE_DEPTH} keys deep"),
        ));
    }
    let value = override_value(o, value_at, base);
    let mut walked = String::new();
    let (table, rest) = enter_spatial(root, &segs, &mut walked, base)?;
    let (table, rest) = enter_named_element(table, rest, &mut walked, base)?;
    let Some(((last, last_span), parents)) = rest.split_last() else {
        return Err((
            at(&(0..o.len())),
            "empty override path".into(),
            String::new(),
        ));
    };
    let table = enter_tables(table, parents, &mut walked, base)?;
    match table.get_mut(last.as_str()) {
        Some(v) => *v = value,
        None => {
            table.insert(Spanned::new(at(last_span), Cow::Owned(last.clone())), value);
        }
    }
    Ok(())
}

/// The value of override `o` from offset `value_at`: TOML if it parses, else the text as a string.
fn override_value<'i>(o: &'i str, value_at: usize, base: usize) -> Spanned<DeValue<'i>> {
    let raw = &o[value_at..];
    let lead = raw.len() - raw.trim_start().len();
    let trimmed = raw.trim();
    let value_start = value_at + lead;
    match DeValue::parse(trimmed) {
        Ok(v) => shift(v, base + value_start, 0),
        Err(_) => Spanned::new(
            base + value_start..base + value_start + trimmed.len(),
            DeValue::String(Cow::Borrowed(trimmed)),
        ),
    }
}

/// A spatial model's named arrays sit under [spatial]: `spatial.bodies.rod.mass=…` enters that
/// table; the table and path left to walk.
fn enter_spatial<'t, 'i, 's>(
    table: &'t mut DeTable<'i>,
    segs: &'s [(String, Range<usize>)],
    walked: &mut String,
    base: usize,
) -> Result<Walk<'t, 'i, 's>, OverrideError> {
    let [(first, fspan), (array, _), _, ..] = segs else {
        return Ok((table, segs));
    };
    if !(first == "spatial" && NAMED_ARRAYS.iter().any(|(k, _)| k == array)) {
        return Ok((table, segs));
    }
    let table = match table.get_mut("spatial").map(|v| v.get_mut()) {
        Some(DeValue::Table(t)) => t,
        _ => {
            return Err((
                fspan.start + base..fspan.end + base,
                "the model has no [spatial] table".into(),
                "override a planar model's entries without the `spatial.` prefix".into(),
            ))
        }
    };
    *walked = "spatial.".into();
    Ok((table, &segs[1..]))
}

/// `bodies.crank.…`: enters the element of a named array with that `name`; the table and path
/// left to walk (unchanged when the path does not start with a named array).
fn enter_named_element<'t, 'i, 's>(
    table: &'t mut DeTable<'i>,
    rest: &'s [(String, Range<usize>)],
    walked: &mut String,
    base: usize,
) -> Result<Walk<'t, 'i, 's>, OverrideError> {
    let at = |r: &Range<usize>| r.start + base..r.end + base;
    let [(array, aspan), (name, nspan), tail @ ..] = rest else {
        return Ok((table, rest));
    };
    let Some((_, kind)) = NAMED_ARRAYS.iter().find(|(k, _)| k == array) else {
        return Ok((table, rest));
    };
    let elems = table
        .get_mut(array.as_str())
        .and_then(|v| match v.get_mut() {
            DeValue::Array(a) => Some(a),
            _ => None,
        });
    let names = element_names(elems.as_deref());
    let index = names.iter().position(|n| n == name);
    let (Some(elems), Some(index)) = (elems, index) else {
        let known: Vec<&str> = names.iter().map(String::as_str).collect();
        let what = format!("{array} in the model");
        return Err((
            at(nspan),
            format!("no {kind} named `{name}`"),
            suggest(name, &known, &what),
        ));
    };
    if tail.is_empty() {
        return Err((
            at(&(aspan.start..nspan.end)),
            format!("the override must name a field of {kind} `{name}`"),
            format!("e.g. `{array}.{name}.<field>=<value>`"),
        ));
    }
    let elems: &mut [Spanned<DeValue<'i>>] = elems;
    let table = match elems[index].get_mut() {
        DeValue::Table(t) => t,
        _ => {
            return Err((
                at(nspan),
                format!("{kind} `{name}` is not a table"),
                String::new(),
            ))
        }
    };
    *walked = format!("{walked}{array}.{name}");
    Ok((table, tail))
}

/// The `name`s of the elements of a named array, in order (none for a missing array).
fn element_names(elems: Option<&DeArray<'_>>) -> Vec<String> {
    elems
        .map(|a| {
            a.iter()
                .filter_map(|e| {
                    e.get_ref()
                        .get("name")?
                        .get_ref()
                        .as_str()
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Walks the `parents` keys down from `table`, creating missing tables; the innermost table.
fn enter_tables<'t, 'i>(
    mut table: &'t mut DeTable<'i>,
    parents: &[(String, Range<usize>)],
    walked: &mut String,
    base: usize,
) -> Result<&'t mut DeTable<'i>, OverrideError> {
    let at = |r: &Range<usize>| r.start + base..r.end + base;
    for (seg, span) in parents {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(seg);
        if !table.contains_key(seg.as_str()) {
            table.insert(
                Spanned::new(at(span), Cow::Owned(seg.clone())),
                Spanned::new(at(span), DeValue::Table(DeTable::new())),
            );
        }
        let Some(next) = table.get_mut(seg.as_str()) else {
            return Err((at(span), format!("cannot create `{walked}`"), String::new()));
        };
        table = match next.get_mut() {
            DeValue::Table(t) => t,
            other => {
                return Err((
                    at(span),
                    format!("`{walked}` is {}, not a table", article(other.type_str())),
                    "override the value itself, or a field of a table".into(),
                ))
            }
        };
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::function::FunctionSpec;
    use crate::model::{BodyKind, ForceSpec, JointKind};

    /// A valid slider-crank with one of everything.
    const VALID: &str = r#"name = "slider-crank"
gravity = [0.0, -9.81]

[ground.points]
A = [0.0, 0.0]

[[bodies]]
name = "crank"
mass = 1.0
inertia = 0.01
theta = 0.5
points = { A = [0.0, 0.0], B = [0.1, 0.0] }

[[bodies]]
name = "rod"
mass = 2
inertia = 0.05
x = 0.1
points = { B = [0.0, 0.0], C = [0.3, 0.0] }

[[bodies]]
name = "slider"
kind = "point"
mass = 0.5
x = 0.4
given = ["x"]

[[joints]]
name = "A"
type = "revolute"
body_i = "ground"
point_i = "A"
body_j = "crank"
point_j = "A"

[[joints]]
name = "B"
type = "revolute"
body_i = "crank"
point_i = "B"
body_j = "rod"
point_j = "B"

[[joints]]
name = "C"
type = "revolute"
body_i = "rod"
point_i = "C"
body_j = "slider"

[[joints]]
name = "D"
type = "prismatic"
body_i = "ground"
body_j = "slider"
axis = [1.0, 0.0]

[[drivers]]
name = "motor"
type = "joint"
joint = "A"
function = { type = "ramp", slope = 6.283 }

[[forces]]
name = "spring"
type = "tsda"
body_i = "ground"
body_j = "slider"
stiffness = 100.0
damping = 1.0

[[forces]]
name = "load"
type = "force"
body = "rod"
point = "C"
fx = { type = "harmonic", amplitude = 1.0, omega = 3.0 }
fy = -2.0

[[markers]]
name = "tip"
body = "rod"
point = "C"

[solver]
scheme = "generalized-alpha"
params = { rho_inf = 0.8 }
dt = 1e-3
t_end = 2.0
"#;

    /// Line and column (1-based, characters) of the `nth` occurrence of `needle` in `text`.
    ///
    /// A `|` in the needle marks the expected position within it (`"mass = |0.0"`); `nth` = [`LAST`]
    /// takes the last occurrence.
    fn at(text: &str, needle: &str, nth: usize) -> (usize, usize) {
        let (before, _) = needle.split_once('|').unwrap_or(("", needle));
        let needle = needle.replace('|', "");
        let found: Vec<usize> = text.match_indices(&needle).map(|(i, _)| i).collect();
        let i = if nth == LAST {
            found.last()
        } else {
            found.get(nth)
        }
        .copied()
        .unwrap_or_else(|| panic!("`{needle}` not in the text"))
            + before.len();
        let line = text[..i].matches('\n').count() + 1;
        let start = text[..i].rfind('\n').map_or(0, |k| k + 1);
        (line, text[start..i].chars().count() + 1)
    }

    const LAST: usize = usize::MAX;

    fn errors(text: &str) -> Vec<ModelError> {
        match from_str(text, "m.toml") {
            Ok(_) => panic!("expected errors for\n{text}"),
            Err(e) => e.errors,
        }
    }

    /// Asserts that reading `text` gives exactly one error, at the `nth` occurrence of `needle`,
    /// whose message contains `message`; returns it.
    fn one_error(text: &str, needle: &str, nth: usize, message: &str) -> ModelError {
        let errs = errors(text);
        assert_eq!(
            errs.len(),
            1,
            "expected one error, got:\n{}",
            ModelErrors {
                errors: errs.clone()
            }
        );
        let e = errs.into_iter().next().unwrap_or_else(|| unreachable!());
        assert_eq!(
            (e.line, e.column),
            at(text, needle, nth),
            "location of\n{e}"
        );
        assert!(
            e.message.contains(message),
            "message of\n{e}\nshould contain `{message}`"
        );
        assert_eq!(e.file, "m.toml");
        e
    }

    /// `VALID` with `old` (which must occur) replaced by `new`.
    fn edit(old: &str, new: &str) -> String {
        assert!(VALID.contains(old), "`{old}` not in VALID");
        VALID.replacen(old, new, 1)
    }

    const BODY: &str = "[[bodies]]\nname = \"b\"\nmass = 1.0\ninertia = 0.1\n";

    #[test]
    fn valid_model_reads_and_round_trips() {
        let m = from_str(VALID, "m.toml").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.name, "slider-crank");
        assert_eq!(m.gravity, [0.0, -9.81]);
        assert_eq!(m.bodies.len(), 3);
        assert_eq!(m.bodies[1].mass, 2.0);
        assert_eq!(m.bodies[2].kind, BodyKind::Point);
        assert_eq!(m.joints[3].kind, JointKind::Prismatic);
        assert!(
            matches!(m.forces[1], ForceSpec::Force { fy: Some(FunctionSpec::Constant(f)), .. } if f == -2.0)
        );
        assert_eq!(m.solver.params.get("rho_inf"), Some(&0.8));
        let written = toml::to_string(&m).unwrap_or_else(|e| panic!("{e}"));
        let again = from_str(&written, "written.toml").unwrap_or_else(|e| panic!("{e}\n{written}"));
        assert_eq!(again, m);
        let file = std::env::temp_dir().join(format!("dynastep-parse-{}.toml", std::process::id()));
        std::fs::write(&file, VALID).unwrap_or_else(|e| panic!("{e}"));
        let from_disk = from_file(&file);
        let _ = std::fs::remove_file(&file);
        assert_eq!(from_disk, Ok(m));
    }

    #[test]
    fn misspelled_body_in_joint() {
        let text = edit("body_j = \"rod\"", "body_j = \"crnk\"");
        let e = one_error(&text, "\"crnk\"", 0, "unknown body `crnk`");
        assert_eq!(e.line, 41);
        assert_eq!(e.column, 10);
        assert_eq!(e.entity.as_deref(), Some("joint `B`"));
        assert!(e.hint.starts_with("did you mean `crank`?"), "{}", e.hint);
        assert!(
            e.hint.contains("`rod`") && e.hint.contains("`ground`"),
            "{}",
            e.hint
        );
        let shown = e.to_string();
        assert_eq!(
            shown,
            "m.toml:41:10: error: joint `B`: unknown body `crnk`\n   |\n41 | body_j = \"crnk\"\n   |          ^^^^^^\n   = help: did you mean `crank`? known bodies: `crank`, `rod`, `ground`, `slider`"
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        let text = "name = \"x\"\ngravity = [0.0, -9.81\n";
        let errs = errors(text);
        assert!(!errs.is_empty());
        assert_eq!(errs[0].line, 2, "{}", errs[0]);
        let text = "[[bodies]]\nname = crank\nmass = 1.0\n";
        let e = &errors(text)[0];
        assert_eq!((e.line, e.column), (2, 8), "{e}");
        assert!(e.hint.contains("double quotes"), "{e}");
        let e = &errors("a = 1\na = 2\n")[0];
        assert_eq!(e.line, 2, "{e}");
        // Headers left open: the help names the header's own closing brackets.
        let e = &errors("[[bodies]\nname = \"a\"\n")[0];
        assert!(e.hint.contains("`]]`"), "{e}");
        let e = &errors("[solver\nt_end = 1.0\n")[0];
        assert!(e.hint.contains("close a table header with `]`"), "{e}");
    }

    #[test]
    fn unknown_fields_suggest_the_valid_ones() {
        let text = edit("inertia = 0.05", "inertai = 0.05");
        let e = one_error(&text, "inertai", 0, "unknown field `inertai`");
        assert!(e.hint.starts_with("did you mean `inertia`?"), "{}", e.hint);
        assert!(
            e.hint.contains("`mass`") && e.hint.contains("`given_velocity`"),
            "{}",
            e.hint
        );
        assert_eq!(e.entity.as_deref(), Some("body `rod`"));
        // Inside an internally tagged force, and at the top level.
        let text = edit("stiffness = 100.0", "stifness = 100.0");
        let e = one_error(&text, "stifness", 0, "unknown field `stifness`");
        assert!(
            e.hint.starts_with("did you mean `stiffness`?"),
            "{}",
            e.hint
        );
        let text = format!("gravty = [0, 1]\n{VALID}");
        let e = one_error(&text, "gravty", 0, "unknown field");
        assert!(e.hint.starts_with("did you mean `gravity`?"), "{}", e.hint);
        // Inside a time function.
        let text = edit("omega = 3.0 }", "omga = 3.0 }");
        let e = one_error(&text, "omga", 0, "unknown field `omga`");
        assert!(e.hint.contains("did you mean `omega`?"), "{}", e.hint);
        assert_eq!(e.entity.as_deref(), Some("force `load`"));
        // Unknown enum values.
        let text = edit("type = \"tsda\"", "type = \"tsd\"");
        let e = one_error(&text, "\"tsd\"", 0, "unknown type `tsd`");
        assert!(e.hint.starts_with("did you mean `tsda`?"), "{}", e.hint);
        let text = edit("type = \"prismatic\"", "type = \"prismatc\"");
        let e = one_error(&text, "\"prismatc\"", 0, "unknown type");
        assert!(
            e.hint.starts_with("did you mean `prismatic`?"),
            "{}",
            e.hint
        );
    }

    #[test]
    fn type_errors_are_located_and_all_reported() {
        let text = edit("mass = 2", "mass = \"heavy\"");
        let e = one_error(&text, "\"heavy\"", 0, "expected a number, found");
        assert!(e.hint.contains("number"), "{}", e.hint);
        let text = edit("x = 0.1", "x = [0.1]");
        one_error(&text, "[0.1]", 0, "expected a number, found");
        let text = edit("gravity = [0.0, -9.81]", "gravity = [0.0, -9.81, 1.0]");
        let e = one_error(
            &text,
            "[0.0, -9.81, 1.0]",
            0,
            "expected an array of 2 numbers, found 3",
        );
        // Three components at the top are a spatial model's gravity, which belongs in [spatial].
        assert!(e.hint.contains("[spatial] table"), "{}", e.hint);
        let text = edit("name = \"motor\"\n", "");
        let e = one_error(&text, "[[drivers]]", 0, "missing field `name`");
        assert!(e.hint.contains("name = "), "{}", e.hint);
        let text = edit(
            "function = { type = \"ramp\", slope = 6.283 }",
            "function = \"sin(t)\"",
        );
        let e = one_error(&text, "\"sin(t)\"", 0, "time function");
        assert!(e.hint.contains("expression"), "{}", e.hint);
        let text = edit("stiffness = 100.0", "stiffness = \"stiff\"");
        one_error(&text, "\"stiff\"", 0, "expected a number, found");
        let text = format!("{VALID}\n[[forces]]\nname = \"t\"\ntype = \"torque\"\nbody = \"rod\"\ntorque = \"2*t\"\n");
        let e = one_error(&text, "\"2*t\"", 0, "time function");
        assert!(e.hint.contains("expr = \"2*t\""), "{e}");
        let text = edit("fy = -2.0", "fy = { type = \"ramp\", slope = \"steep\" }");
        one_error(&text, "\"steep\"", 0, "expected a number, found");
        let text = edit("slope = 6.283", "slop = 6.283");
        let e = one_error(&text, "slop", 0, "unknown field `slop`");
        assert!(e.hint.starts_with("did you mean `slope`?"), "{}", e.hint);
        // Type errors in different entities come together.
        let text = edit("mass = 2", "mass = \"heavy\"")
            .replacen("dt = 1e-3", "dt = \"small\"", 1)
            .replacen("damping = 1.0", "damping = true", 1);
        let errs = errors(&text);
        assert_eq!(
            errs.len(),
            3,
            "{}",
            ModelErrors {
                errors: errs.clone()
            }
        );
        assert_eq!((errs[0].line, errs[0].column), at(&text, "\"heavy\"", 0));
        assert_eq!((errs[1].line, errs[1].column), at(&text, "true", 0));
        assert_eq!((errs[2].line, errs[2].column), at(&text, "\"small\"", 0));
        assert_eq!(errs[2].entity.as_deref(), Some("solver"));
    }

    #[test]
    fn name_errors() {
        let text = edit("point_j = \"B\"", "point_j = \"Q\"");
        let e = one_error(&text, "\"Q\"", 0, "body `rod` has no point `Q`");
        assert!(
            e.hint.contains("`origin`") && e.hint.contains("`C`"),
            "{}",
            e.hint
        );
        let text = edit("joint = \"A\"", "joint = \"Z\"");
        let e = one_error(&text, "\"Z\"", 0, "unknown joint `Z`");
        assert!(e.hint.contains("`A`, `B`, `C`, `D`"), "{}", e.hint);
        let text = format!("{VALID}\n[[forces]]\nname = \"r\"\ntype = \"rsda\"\njoint = \"AA\"\n");
        let e = one_error(&text, "\"AA\"", 0, "unknown joint `AA`");
        assert!(e.hint.starts_with("did you mean `A`?"), "{}", e.hint);
        let text = format!("{VALID}\n[[forces]]\nname = \"r\"\ntype = \"rsda\"\njoint = \"D\"\n");
        one_error(&text, "\"D\"", LAST, "not revolute");
        let text = edit("name = \"C\"", "name = \"B\"");
        one_error(&text, "name = |\"B\"", 1, "duplicate joint name `B`");
        let text = edit("name = \"rod\"", "name = \"crank\"");
        let errs = errors(&text);
        assert_eq!(
            errs[0].message,
            "duplicate body name `crank` (also bodies[0])"
        );
        assert_eq!((errs[0].line, errs[0].column), at(&text, "\"crank\"", 1));
        let text = edit("name = \"slider\"", "name = \"ground\"");
        let errs = errors(&text);
        assert_eq!((errs[0].line, errs[0].column), at(&text, "\"ground\"", 0));
        assert!(errs[0].message.contains("may not be named `ground`"));
        // Same name in different namespaces is fine (joint `A` and ground point `A` above), except a
        // marker named like a body: their time-history columns would collide.
        let text = edit("name = \"tip\"", "name = \"rod\"");
        let errs = errors(&text);
        assert!(
            errs[0].message.contains("would collide"),
            "{}",
            errs[0].message
        );
        let text =
            format!("{VALID}\n[[markers]]\nname = \"tip\"\nbody = \"ground\"\npoint = \"A\"\n");
        one_error(&text, "\"tip\"", LAST, "duplicate marker name `tip`");
        // Markers are one spec in both kinds; an angle sequence is for spatial ones only.
        let text =
            format!("{VALID}\n[[markers]]\nname = \"m2\"\nbody = \"ground\"\nangles = \"zxz\"\n");
        one_error(&text, "\"zxz\"", 0, "a planar marker has no angle sequence");
    }

    #[test]
    fn run_time_messages_are_located_at_the_element_they_name() {
        // The first element named, as a whole word; planar arrays here, `[spatial]` in the CLI's
        // tests.
        let m = "the largest violation is in joint `B` (revolute), x; nobody `crank` moved";
        let e = locate_entity(VALID, "m.toml", m, "").expect("joint `B` is in the file");
        let (line, column) = at(VALID, "\"B\"", 0);
        assert_eq!((e.line, e.column), (line, column), "{e}");
        assert_eq!(e.message, m);
        assert_eq!(
            named_elements(m),
            vec![(m.find("joint").unwrap(), "joint", "B")]
        );
        let e = locate_entity(VALID, "m.toml", "rigid body `rod`: x", "").unwrap();
        assert_eq!(e.line, at(VALID, "\"rod\"", 0).0);
        assert!(locate_entity(VALID, "m.toml", "joint `nowhere` failed", "").is_none());
        assert!(locate_entity(VALID, "m.toml", "Newton stalled", "").is_none());
        // A run setting, by its path; one the file does not give is not located.
        let e = locate_path(VALID, "m.toml", "solver.dt", "dt is bad", "").unwrap();
        assert_eq!((e.line, e.column), at(VALID, "dt = |", 0), "{e}");
        assert!(locate_path(VALID, "m.toml", "solver.step.rtol", "x", "").is_none());
        // An `[equations]` expression, by the name the equation system gives it.
        assert_eq!(
            equation_reference("`mass[1][0]` = `q` is NaN"),
            Some(vec![
                PathSeg::Key("equations".into()),
                PathSeg::Key("mass".into()),
                PathSeg::Index(1),
                PathSeg::Index(0),
            ])
        );
        assert_eq!(equation_reference("`forces[x]` is NaN"), None);
    }

    #[test]
    fn body_errors() {
        let text = edit("mass = 1.0", "mass = 0.0");
        let e = one_error(&text, "mass = |0.0", 0, "mass must be positive");
        assert_eq!(e.entity.as_deref(), Some("body `crank`"));
        let text = edit("mass = 1.0", "mass = nan");
        one_error(&text, "nan", 0, "mass must be positive and finite");
        let text = edit("inertia = 0.05\n", "");
        let e = one_error(&text, "[[bodies]]", 1, "needs an `inertia`");
        assert!(e.hint.contains("kind = \"point\""), "{}", e.hint);
        let text = edit("inertia = 0.05", "inertia = -0.05");
        one_error(&text, "-0.05", 0, "inertia must be positive");
        let text = edit("mass = 0.5", "mass = 0.5\ninertia = 1.0");
        one_error(&text, "inertia = |1.0", 0, "a point mass has no inertia");
        let text = edit("given = [\"x\"]", "given = [\"x\", \"theta\"]");
        one_error(&text, "\"theta\"", 0, "`given` lists `theta`");
        let text = edit("given = [\"x\"]", "given_velocity = [\"theta\"]");
        one_error(&text, "\"theta\"", 0, "`given_velocity` lists `theta`");
    }

    #[test]
    fn joint_errors() {
        let text = edit("body_j = \"rod\"", "body_j = \"crank\"");
        one_error(
            &text,
            "body_j = |\"crank\"",
            1,
            "joins body `crank` to itself",
        );
        let text = edit("axis = [1.0, 0.0]", "axis = [0.0, 0.0]");
        let e = one_error(&text, "axis = |[0.0, 0.0]", 0, "has no direction");
        assert_eq!(e.entity.as_deref(), Some("joint `D`"));
        let text = format!("{VALID}\n[[joints]]\nname = \"E\"\ntype = \"distance\"\nbody_i = \"ground\"\nbody_j = \"rod\"\nlength = -1\n");
        one_error(&text, "-1", 0, "length must be at least 1e-12 m");
        // Rules that need the initial geometry are located too: the crank's origin is on the
        // ground's origin, so a distance joint between them has no length to keep.
        let text = format!("{VALID}\n[[joints]]\nname = \"E\"\ntype = \"distance\"\nbody_i = \"ground\"\nbody_j = \"crank\"\n");
        one_error(&text, "\"crank\"", LAST, "0e0 m apart initially");
        // An axis whose squared norm underflows has no direction to normalize.
        let text = edit("axis = [1.0, 0.0]", "axis = [1e-200, 0.0]");
        one_error(&text, "axis = |[1e-200, 0.0]", 0, "has no direction");
    }

    #[test]
    fn driver_errors() {
        let extra = "\n[[joints]]\nname = \"E\"\ntype = \"distance\"\nbody_i = \"ground\"\nbody_j = \"rod\"\n";
        let text = format!("{}{extra}", edit("joint = \"A\"", "joint = \"E\""));
        let e = one_error(&text, "\"E\"", 0, "joint `E` is a distance joint");
        assert_eq!(e.entity.as_deref(), Some("driver `motor`"));
        let driver = "\n[[drivers]]\nname = \"d\"\ntype = \"coordinate\"\n";
        let text = format!("{VALID}{driver}coordinate = \"x\"\nfunction = 0.1\n");
        let e = one_error(&text, "[[drivers]]", LAST, "needs `body`");
        assert!(e.hint.contains("`crank`"), "{}", e.hint);
        let text = format!("{VALID}{driver}body = \"rod\"\nfunction = 0.1\n");
        one_error(&text, "[[drivers]]", LAST, "needs `coordinate`");
        let text =
            format!("{VALID}{driver}body = \"slider\"\ncoordinate = \"theta\"\nfunction = 0.1\n");
        one_error(&text, "\"theta\"", 0, "point mass");
        let text =
            format!("{VALID}{driver}body = \"ground\"\ncoordinate = \"x\"\nfunction = 0.1\n");
        one_error(&text, "\"ground\"", LAST, "ground");
        let text = edit(
            "function = { type = \"ramp\", slope = 6.283 }",
            "function = { type = \"expression\", expr = \"sin(x)\" }",
        );
        let e = one_error(&text, "expr = |\"sin(x)\"", 0, "invalid time function");
        assert!(e.message.contains("unknown variable"), "{e}");
        let text = edit(
            "function = { type = \"ramp\", slope = 6.283 }",
            "function = { type = \"smooth_step\", t0 = 1, t1 = 0, v0 = 0, v1 = 1 }",
        );
        one_error(&text, "t1 = |0", 0, "t1 > t0");
    }

    #[test]
    fn force_errors() {
        let text = format!("{VALID}\n[[forces]]\nname = \"t\"\ntype = \"torque\"\nbody = \"slider\"\ntorque = 1.0\n");
        let e = one_error(
            &text,
            "\"slider\"",
            LAST,
            "point mass, which cannot take a torque",
        );
        assert_eq!(e.entity.as_deref(), Some("force `t`"));
        let text = edit("point = \"C\"", "point = \"X\"");
        one_error(&text, "\"X\"", 0, "has no point `X`");
        let text = edit("fy = -2.0", "fy = { type = \"table\", points = [] }");
        one_error(&text, "points = |[]", 0, "at least one");
        let tsda = "\n[[forces]]\nname = \"s\"\ntype = \"tsda\"\n";
        let text = format!("{VALID}{tsda}body_i = \"rod\"\nbody_j = \"rod\"\npoint_j = \"C\"\n");
        one_error(&text, "\"rod\"", LAST, "connects body `rod` to itself");
        let text = format!("{VALID}{tsda}body_i = \"ground\"\npoint_i = \"A\"\nbody_j = \"crank\"\npoint_j = \"A\"\n");
        one_error(&text, "\"crank\"", LAST, "apart initially");
        let rsda = "\n[[forces]]\nname = \"r\"\ntype = \"rsda\"\njoint = \"C\"\n";
        let e = one_error(
            &format!("{VALID}{rsda}"),
            "\"C\"",
            LAST,
            "connects point mass `slider`",
        );
        assert_eq!(e.entity.as_deref(), Some("force `r`"));
    }

    #[test]
    fn solver_errors() {
        let text = edit(
            "scheme = \"generalized-alpha\"",
            "scheme = \"generalised-alpha\"",
        );
        let e = one_error(&text, "\"generalised-alpha\"", 0, "unknown scheme");
        assert!(
            e.hint.starts_with("did you mean `generalized-alpha`?"),
            "{}",
            e.hint
        );
        assert_eq!(e.entity.as_deref(), Some("solver"));
        let text = edit("rho_inf = 0.8", "rho = 0.8");
        let e = one_error(&text, "rho", 0, "has no parameter `rho`");
        assert!(e.hint.contains("`rho_inf`"), "{}", e.hint);
        let text = edit("rho_inf = 0.8", "rho_inf = 1.5");
        one_error(&text, "1.5", 0, "out of range");
        let text = edit("dt = 1e-3", "dt = 0");
        one_error(&text, "dt = |0", 0, "dt must be positive");
        let text = edit("t_end = 2.0", "t_start = 3.0\nt_end = 2.0");
        one_error(&text, "t_end = |2.0", 0, "not after t_start");
        let text = edit("t_end = 2.0", "t_end = 2.0\noutput_interval = -0.1");
        one_error(&text, "-0.1", 0, "output_interval");
        let text = format!("{VALID}\n[solver.newton]\nposition_tol = 0.0\n");
        one_error(
            &text,
            "position_tol = |0.0",
            0,
            "position_tol must be positive",
        );
        let text = format!("{VALID}\n[solver.newton]\nresidual_tol = -1e-8\n");
        one_error(&text, "-1e-8", 0, "residual_tol must be positive");
    }

    /// The step-control settings and the formulation, each located at its value (they passed the
    /// reader and failed at the run, without a position).
    #[test]
    fn step_settings_and_formulation_errors() {
        for (line, value, message) in [
            ("rtol = -1", "rtol = |-1", "rtol must be positive"),
            ("atol = 0.0", "atol = |0.0", "atol must be positive"),
            ("h_min = -1e-9", "h_min = |-1e-9", "h_min must be positive"),
            ("h_max = inf", "h_max = |inf", "h_max must be positive"),
        ] {
            let text = format!("{VALID}\n[solver.step]\nrtol = 1e-6\n{line}\n")
                .replace("rtol = 1e-6\nrtol = -1", "rtol = -1");
            one_error(&text, value, 0, message);
        }
        let text = format!("{VALID}\n[solver.step]\nrtol = 1e-6\nh_min = 1e-2\nh_max = 1e-3\n");
        one_error(&text, "h_min = |1e-2", 0, "exceeds h_max");
        let text = format!("{VALID}\n[solver.step]\nmax_halvings = 40\n");
        let e = one_error(&text, "max_halvings = |40", 0, "into 2^40 parts");
        assert!(e.hint.contains("at most 20"), "{}", e.hint);
        let text = format!("{VALID}\n[solver.step]\nhalve_after_iterations = 0\n");
        one_error(
            &text,
            "halve_after_iterations = |0",
            0,
            "halve_after_iterations must be at least 1",
        );
        let text = edit("dt = 1e-3", "dt = 1e-3\nformulation = \"index4\"");
        let e = one_error(&text, "\"index4\"", 0, "unknown formulation `index4`");
        assert!(e.hint.contains("index3"), "{}", e.hint);
        let text = edit("dt = 1e-3", "dt = 1e-3\nformulation = \"projection\"");
        one_error(&text, "\"projection\"", 0, "does not serve scheme");
        let text = format!("{VALID}\n[solver.constraints]\nbeta = -2.0\n");
        one_error(&text, "beta = |-2.0", 0, "beta must be positive");
        let text = format!("{VALID}\n[solver.constraints]\ntolerance = 0.0\n");
        one_error(&text, "tolerance = |0.0", 0, "tolerance must be positive");
    }

    #[test]
    fn several_errors_are_reported_together_in_file_order() {
        let text = edit("body_j = \"rod\"", "body_j = \"crnk\"")
            .replacen("mass = 0.5", "mass = -0.5", 1)
            .replacen("joint = \"A\"", "joint = \"Q\"", 1)
            .replacen("dt = 1e-3", "dt = -1.0", 1);
        let errs = errors(&text);
        let found: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.column)).collect();
        let expected = vec![
            at(&text, "-0.5", 0),
            at(&text, "\"crnk\"", 0),
            at(&text, "\"Q\"", 0),
            at(&text, "-1.0", 0),
        ];
        assert_eq!(
            found,
            expected,
            "{}",
            ModelErrors {
                errors: errs.clone()
            }
        );
        let shown = ModelErrors { errors: errs }.to_string();
        assert!(shown.ends_with("4 errors"), "{shown}");
        assert!(shown.contains("m.toml:"), "{shown}");
    }

    fn with(overrides: &[&str]) -> Result<Model, ModelErrors> {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        from_str_with_overrides(VALID, "m.toml", &o)
    }

    #[test]
    fn overrides_change_values() {
        let m = with(&[
            "bodies.crank.theta=-0.0617",
            "gravity=[0,-9.81]",
            "solver.dt=1e-4",
            "joints.D.axis = [0, 1]",
            "solver.params.rho_inf=0.6",
            "forces.spring.stiffness=100",
            "solver.scheme=hht",
            "solver.newton.max_iterations=7",
            "name=my model",
            "markers.tip.point=\"B\"",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.bodies[0].theta, -0.0617);
        assert_eq!(m.gravity, [0.0, -9.81]);
        assert_eq!(m.solver.dt, Some(1e-4));
        assert_eq!(m.joints[3].axis, Some([0.0, 1.0]));
        assert_eq!(m.solver.params.get("rho_inf"), Some(&0.6));
        assert!(matches!(m.forces[0], ForceSpec::Tsda { stiffness, .. } if stiffness == 100.0));
        assert_eq!(m.solver.scheme.as_deref(), Some("hht"));
        assert_eq!(m.solver.newton.max_iterations, 7);
        assert_eq!(m.name, "my model");
        assert_eq!(m.markers[0].point.as_deref(), Some("B"));
        // Missing keys and tables are created.
        let text = "[[bodies]]\nname = \"b\"\nmass = 1.0\ninertia = 0.1\n\n[[joints]]\nname = \"B\"\ntype = \"distance\"\nbody_i = \"ground\"\nbody_j = \"b\"\n";
        let o = vec![
            "joints.B.length=0.5".to_string(),
            "solver.params.rho_inf=0.6".to_string(),
        ];
        let m = from_str_with_overrides(text, "m.toml", &o).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.joints[0].length, Some(0.5));
        assert_eq!(m.solver.params.get("rho_inf"), Some(&0.6));
        assert!(from_str(BODY, "m.toml").is_ok());
    }

    /// `--set` reaches a spatial model's named entries under `spatial.`, with the same pointed
    /// errors, and says so when a planar model is addressed that way.
    #[test]
    fn overrides_of_spatial_entries() {
        let spatial = crate::examples::find("spatial-top").expect("example").text;
        let set = |o: &[&str]| {
            let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
            from_str_with_overrides(spatial, "top.toml", &o)
        };
        let m = set(&[
            "spatial.bodies.top.mass=0.03",
            "spatial.gravity=[0,0,-1.62]",
            "spatial.joints.tip.point_j=\"origin\"",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let s = m.spatial.expect("spatial");
        assert_eq!((s.bodies[0].mass, s.gravity[2]), (0.03, -1.62));
        assert_eq!(s.joints[0].point_j.as_deref(), Some("origin"));
        let e = set(&["spatial.bodies.tp.mass=1"]).unwrap_err();
        assert!(e.errors[0].message.contains("no body named `tp`"), "{e}");
        assert_eq!(e.errors[0].column, 16);
        let e = set(&["spatial.bodies.top.axsi=1"]).unwrap_err();
        assert!(e.errors[0].message.contains("unknown field `axsi`"), "{e}");
        let e = with(&["spatial.bodies.crank.mass=1"]).unwrap_err();
        assert!(e.errors[0].message.contains("no [spatial] table"), "{e}");
        // A NaN in the orientation is not "of zero length" (found by hostile input).
        let bad = spatial.replace(
            "orientation = { axis = [1.0, 0.0, 0.0], angle = 0.5235987755982988 }",
            "orientation = { euler_parameters = [nan, 0.0, 0.0, 1.0] }",
        );
        assert_ne!(bad, spatial);
        let e = from_str(&bad, "top.toml").unwrap_err().to_string();
        assert!(
            e.contains("not finite") && !e.contains("zero length"),
            "{e}"
        );
        let bad = spatial.replace("angle = 0.5235987755982988", "angle = inf");
        let e = from_str(&bad, "top.toml").unwrap_err().to_string();
        assert!(
            e.contains("finite numbers") && !e.contains("zero length"),
            "{e}"
        );
    }

    #[test]
    fn overrides_reject_unknown_targets() {
        let e = with(&["solver.dt=1e-4", "bodies.crnk.theta=1"]).unwrap_err();
        assert_eq!(e.len(), 1);
        let e = &e.errors[0];
        assert_eq!(e.file, COMMAND_LINE);
        assert_eq!((e.line, e.column), (1, 8));
        assert_eq!(e.source_line, "bodies.crnk.theta=1");
        assert_eq!(e.width, 4);
        assert!(e.message.contains("no body named `crnk`"), "{e}");
        assert!(e.hint.starts_with("did you mean `crank`?"), "{}", e.hint);
        let e = with(&["forces.sprung.stiffness=1"]).unwrap_err();
        assert!(e.errors[0].hint.contains("`spring`"), "{e}");
        let e = with(&["joints.A.lenght=1"]).unwrap_err();
        let e = &e.errors[0];
        assert_eq!((e.file.as_str(), e.column), (COMMAND_LINE, 10), "{e}");
        assert!(e.hint.contains("did you mean `length`?"), "{e}");
        assert_eq!(e.entity.as_deref(), Some("joint `A`"));
        let e = with(&["solver.dt=fast"]).unwrap_err();
        let e = &e.errors[0];
        assert_eq!((e.file.as_str(), e.column), (COMMAND_LINE, 11), "{e}");
        assert_eq!(e.message, "expected a number, found string \"fast\"");
        let e = with(&["solver.dt"]).unwrap_err();
        assert!(e.errors[0].hint.contains("PATH=VALUE"), "{e}");
        let e = with(&["gravity.x=1"]).unwrap_err();
        assert!(e.errors[0].message.contains("not a table"), "{e}");
        let e = with(&["bodies.crank=1"]).unwrap_err();
        assert!(e.errors[0].message.contains("must name a field"), "{e}");
        let e = with(&["solver.scheme=nope"]).unwrap_err();
        assert_eq!(e.errors[0].file, COMMAND_LINE, "{e}");
        assert!(e.errors[0].message.contains("unknown scheme `nope`"), "{e}");
        // `auto`, the stiffness switch, chooses the parameters and the formulation itself.
        let e = with(&["solver.scheme=\"auto\""]).unwrap_err();
        assert!(e.errors[0].message.contains("takes no parameters"), "{e}");
        assert_eq!(e.errors[0].line, 87, "{e}"); // the file's `params = { rho_inf = 0.8 }`
        let m = with(&["solver.scheme=\"auto\"", "solver.params={}"]).unwrap();
        assert_eq!(m.solver.scheme.as_deref(), Some("auto"));
        let e = with(&[
            "solver.scheme=\"auto\"",
            "solver.params={}",
            "solver.formulation=\"index3\"",
        ])
        .unwrap_err();
        assert!(e.errors[0].message.contains("takes no formulation"), "{e}");
        let e = with(&["bodies.rod.mass=0"]).unwrap_err();
        assert_eq!(
            (e.errors[0].file.as_str(), e.errors[0].column),
            (COMMAND_LINE, 17),
            "{e}"
        );
        assert_eq!(e.errors[0].entity.as_deref(), Some("body `rod`"), "{e}");
    }

    #[test]
    fn unreadable_and_non_utf8_files() {
        let e = from_file(Path::new("/nonexistent/dir/model.toml")).unwrap_err();
        assert!(e.errors[0].message.contains("cannot read"), "{e}");
        let file =
            std::env::temp_dir().join(format!("dynastep-parse-bad-{}.toml", std::process::id()));
        std::fs::write(&file, b"name = \"a\"\nx = \"\xff\"\n").unwrap_or_else(|e| panic!("{e}"));
        let e = from_file(&file).unwrap_err();
        let _ = std::fs::remove_file(&file);
        assert_eq!((e.errors[0].line, e.errors[0].column), (2, 6), "{e}");
    }

    /// The committed `docs/model.schema.json` must match the types.
    #[test]
    fn schema_file_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/model.schema.json");
        let generated = serde_json::to_string_pretty(&json_schema()).unwrap_or_default() + "\n";
        if std::env::var_os("DYNASTEP_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is out of date with the model types; regenerate it with `DYNASTEP_BLESS=1 cargo test -p dynastep schema`",
            path.display()
        );
    }

    /// The complete example in `docs/model-format.md` (every ```toml block whose first line is a
    /// `# name.toml` comment) must read without error.
    #[test]
    fn documented_example_reads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/model-format.md");
        let doc =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut checked = 0;
        for block in doc.split("```toml\n").skip(1) {
            let block = block.split("```").next().unwrap_or_default();
            if block.starts_with("# ") && block.lines().next().is_some_and(|l| l.ends_with(".toml"))
            {
                let m = from_str(block, "model-format.md").unwrap_or_else(|e| panic!("{e}"));
                assert!(!m.bodies.is_empty());
                checked += 1;
            }
        }
        assert!(
            checked >= 1,
            "no complete example found in {}",
            path.display()
        );
    }

    mod never_panics {
        use super::*;
        use proptest::prelude::*;

        fn read(text: &str, overrides: &[String]) {
            if let Err(e) = from_str_with_overrides(text, "m.toml", overrides) {
                assert!(!e.is_empty());
                let _ = e.to_string();
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn arbitrary_text(text in ".{0,400}") {
                read(&text, &[]);
            }

            #[test]
            fn arbitrary_toml_like_text(text in "[a-z_\\[\\]{}=\", .0-9\\n#'-]{0,300}") {
                read(&text, &[]);
            }

            #[test]
            fn byte_edits(edits in prop::collection::vec((0usize..4096, any::<u8>(), 0u8..3), 1..8)) {
                let mut bytes = VALID.as_bytes().to_vec();
                for (pos, byte, op) in edits {
                    let i = pos % (bytes.len() + 1);
                    match op {
                        0 => bytes.insert(i, byte),
                        1 if i < bytes.len() => { bytes.remove(i); }
                        _ if i < bytes.len() => bytes[i] = byte,
                        _ => {}
                    }
                }
                read(&String::from_utf8_lossy(&bytes), &[]);
            }

            #[test]
            fn deleted_and_swapped_lines(deleted in prop::collection::vec(0usize..200, 0..6), swaps in prop::collection::vec((0usize..200, 0usize..200), 0..6)) {
                let mut lines: Vec<&str> = VALID.lines().collect();
                for d in deleted {
                    if !lines.is_empty() {
                        let i = d % lines.len();
                        lines.remove(i);
                    }
                }
                for (a, b) in swaps {
                    if !lines.is_empty() {
                        let (a, b) = (a % lines.len(), b % lines.len());
                        lines.swap(a, b);
                    }
                }
                read(&lines.join("\n"), &[]);
            }

            #[test]
            fn swapped_values(swaps in prop::collection::vec((0usize..200, 0usize..200), 1..6)) {
                // Swap the right-hand sides of `key = value` lines.
                let mut lines: Vec<String> = VALID.lines().map(str::to_string).collect();
                let with_values: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
                for (a, b) in swaps {
                    let (a, b) = (with_values[a % with_values.len()], with_values[b % with_values.len()]);
                    let (ka, va) = lines[a].split_once(" = ").map(|(k, v)| (k.to_string(), v.to_string())).unwrap_or_default();
                    let (kb, vb) = lines[b].split_once(" = ").map(|(k, v)| (k.to_string(), v.to_string())).unwrap_or_default();
                    lines[a] = format!("{ka} = {vb}");
                    lines[b] = format!("{kb} = {va}");
                }
                read(&lines.join("\n"), &[]);
            }

            #[test]
            fn arbitrary_overrides(o in prop::collection::vec("[a-z_.\"=\\[\\]{}, 0-9-]{0,40}", 0..4)) {
                read(VALID, &o);
            }
        }
    }
}

//! Text: `parse(text, form=None)`, strict where `uuid.UUID(...)` is lenient, its
//! errors naming the byte at fault; `format(u, form)` in the eight forms of the
//! `uuidkit` command (the four hex forms and base32/58/62/64url).

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use uuidkit::encoding::Encoding;
use uuidkit::{Case, Format, Uuid};

use crate::args;
use crate::bridge::{self, to_py};
use crate::platform;

create_exception!(
    uuidkit,
    ParseError,
    PyValueError,
    "Text that is not a UUID in the form asked for. A `ValueError`, with `position` (the \
     index of the first byte at fault, in the text's UTF-8 bytes) and `text` (the input)."
);

/// A text form: one of the hex forms of RFC 9562, or a compact encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Hex(Format),
    Compact(Encoding),
}

/// The names of the forms, in the order of the command's `--format`.
pub const FORMS: [&str; 8] = [
    "hyphenated",
    "simple",
    "braced",
    "urn",
    "base32",
    "base58",
    "base62",
    "base64url",
];

impl Form {
    fn named(name: &str) -> Option<Form> {
        Some(match name {
            "hyphenated" => Form::Hex(Format::Hyphenated),
            "simple" => Form::Hex(Format::Simple),
            "braced" => Form::Hex(Format::Braced),
            "urn" => Form::Hex(Format::Urn),
            other => Form::Compact(other.parse().ok()?),
        })
    }

    /// The form argument `arg` of `func` names. The name is read in place (no copy):
    /// `uuid7_str("base58")` spends a few nanoseconds here, not an allocation or two.
    pub fn from_arg(value: &Bound<'_, PyAny>, func: &str) -> PyResult<Form> {
        let text = args::name(value, func, "form")?.cast::<PyString>()?;
        let text = std::str::from_utf8(platform::utf8(text)?)?;
        Form::named(text).ok_or_else(|| args::unknown(func, "form", text, &FORMS))
    }
}

/// A form and a letter case, checked together: what `format` and the text calls of
/// `fresh.rs` write.
#[derive(Clone, Copy)]
pub struct Spelling {
    form: Form,
    case: Case,
}

impl Spelling {
    /// The arguments `form` (`None`: hyphenated) and `upper` of `func`: an unknown or
    /// non-`str` form is refused by [`Form::from_arg`], `upper` with a compact form is a
    /// `ValueError` naming `upper` (a compact form has one spelling).
    pub fn from_args(form: Option<&Bound<'_, PyAny>>, upper: bool, func: &str) -> PyResult<Self> {
        let form = form
            .map(|f| Form::from_arg(f, func))
            .transpose()?
            .unwrap_or(Form::Hex(Format::Hyphenated));
        match form {
            Form::Compact(e) if upper => Err(PyValueError::new_err(format!(
                "{func}() argument 'upper' applies to the hex forms only, not {}",
                e.name()
            ))),
            _ => Ok(Spelling {
                form,
                case: if upper { Case::Upper } else { Case::Lower },
            }),
        }
    }

    /// The length of every text of this spelling, in bytes (all ASCII).
    pub fn len(self) -> usize {
        match self.form {
            Form::Hex(f) => f.len(),
            Form::Compact(e) => e.len(),
        }
    }

    /// `u`'s text, written into the front of `out` (at least [`Self::len`] bytes):
    /// no allocation.
    pub fn write(self, u: &Uuid, out: &mut [u8]) {
        let n = self.len();
        match self.form {
            Form::Hex(f) => out[..n].copy_from_slice(u.format(f, self.case).as_bytes()),
            Form::Compact(e) => {
                let mut buf = [0u8; Encoding::MAX_LEN];
                out[..n].copy_from_slice(e.encode(u, &mut buf).as_bytes());
            }
        }
    }

    /// `u`'s text as a `str`: written on the stack, copied once, into the `str`.
    pub fn to_py<'py>(self, py: Python<'py>, u: &Uuid) -> Bound<'py, PyString> {
        match self.form {
            Form::Hex(f) => PyString::new(py, u.format(f, self.case).as_str()),
            Form::Compact(e) => {
                let mut buf = [0u8; Encoding::MAX_LEN];
                PyString::new(py, e.encode(u, &mut buf))
            }
        }
    }

    /// The hex form and case, for a batch written with `uuidkit::text::encode_lines`;
    /// `None` for a compact form.
    pub fn hex(self) -> Option<(Format, Case)> {
        match self.form {
            Form::Hex(f) => Some((f, self.case)),
            Form::Compact(_) => None,
        }
    }
}

/// Where `text`, a valid hex UUID of some form, first departs from `form`: the first
/// byte that is not what `form` has there (a hex digit, `-`, a brace, the URN prefix),
/// else its end.
fn first_departure(text: &[u8], form: Format) -> (usize, &'static str) {
    let (prefix, body_at): (&[u8], usize) = match form {
        Format::Braced => (b"{", 1),
        Format::Urn => (b"urn:uuid:", 9),
        _ => (b"", 0),
    };
    for (i, p) in prefix.iter().enumerate() {
        if text.get(i).map(u8::to_ascii_lowercase) != Some(*p) {
            let what = if form == Format::Urn {
                "the prefix 'urn:uuid:'"
            } else {
                "an opening brace '{'"
            };
            return (i, what);
        }
    }
    let hyphens = form != Format::Simple;
    for k in 0..32 + if hyphens { 4 } else { 0 } {
        let i = body_at + k;
        let want_hyphen = hyphens && matches!(k, 8 | 13 | 18 | 23);
        let ok = match text.get(i) {
            Some(b'-') => want_hyphen,
            Some(b) => !want_hyphen && b.is_ascii_hexdigit(),
            None => false,
        };
        if !ok {
            return (
                i,
                if want_hyphen {
                    "a hyphen '-'"
                } else {
                    "a hex digit"
                },
            );
        }
    }
    let end = body_at + if hyphens { 36 } else { 32 };
    if form == Format::Braced && text.get(end) != Some(&b'}') {
        return (end, "a closing brace '}'");
    }
    (text.len().min(form.len()), "the end of the input")
}

/// The text quoted for a message: Python's `repr` of it, cut after 48 characters with
/// its length stated (the byte at fault is never past the 46th).
fn quoted(text: &Bound<'_, PyAny>, len: usize) -> String {
    let repr = |t: &Bound<'_, PyAny>| t.repr().map_or_else(|_| "?".into(), |r| r.to_string());
    if len <= 64 {
        return repr(text);
    }
    match text.get_item(pyo3::types::PySlice::new(text.py(), 0, 48, 1)) {
        Ok(head) => format!("{}… ({len} bytes)", repr(&head)),
        Err(_) => format!("({len} bytes)"),
    }
}

fn parse_error(text: &Bound<'_, PyAny>, len: usize, position: usize, detail: &str) -> PyErr {
    let err = ParseError::new_err(format!("invalid UUID {}: {detail}", quoted(text, len)));
    let value = err.value(text.py());
    // Setting attributes on a fresh exception instance does not fail; if it did, the
    // message still names the position.
    let _ = value.setattr("position", position);
    let _ = value.setattr("text", text);
    err
}

/// `parse(text, form=None)`: the `uuid.UUID` that `text` (a `str` or `bytes`) spells.
///
/// Without `form`: any of RFC 9562's four hex forms, and nothing else — hyphenated (36
/// characters), simple (32), braced (38) or URN (45), hex digits in either case — where
/// `uuid.UUID(...)` also takes stray braces, hyphens anywhere and a bare `urn:` or
/// `uuid:`. With `form`: only that form, which may also be `base32` (Crockford, 26
/// characters), `base58`, `base62` or `base64url` (22).
///
/// Raises `uuidkit.ParseError` (a `ValueError`) naming the byte at fault, with its index
/// in `position`.
///
/// >>> uuidkit.parse("{C232AB00-9414-11EC-B3C8-9F6BDECED846}").version
/// 1
/// >>> uuidkit.parse("c232ab00-9414-11ec-b3c8_9f6bdeced846")
/// Traceback (most recent call last):
/// ...
/// uuidkit.ParseError: invalid UUID 'c232ab00-9414-11ec-b3c8_9f6bdeced846': at byte 23: expected a hyphen '-', found '_'
#[pyfunction]
#[pyo3(signature = (text, form=None))]
pub fn parse<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    form: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let form = form.map(|f| Form::from_arg(f, "parse")).transpose()?;
    let bytes: &[u8] = if let Ok(s) = text.cast::<PyString>() {
        platform::utf8(s)?
    } else if let Ok(b) = text.cast::<PyBytes>() {
        b.as_bytes()
    } else {
        return Err(PyTypeError::new_err(format!(
            "parse() argument 'text' must be str or bytes, not {}",
            bridge::type_name(text)
        )));
    };
    let u = match form {
        None | Some(Form::Hex(_)) => match Uuid::parse_ascii(bytes) {
            Ok(u) => u,
            Err(e) => return Err(parse_error(text, bytes.len(), e.index(), &e.to_string())),
        },
        Some(Form::Compact(enc)) => match enc.decode(bytes) {
            Ok(u) => u,
            Err(e) => return Err(parse_error(text, bytes.len(), e.index(), &e.to_string())),
        },
    };
    if let Some(Form::Hex(f)) = form
        && bytes.len() != f.len()
    {
        let (at, expected) = first_departure(bytes, f);
        let found = bytes.get(at).map_or_else(
            || "the end of the input".to_string(),
            |b| format!("{:?}", *b as char),
        );
        let name = FORMS[f as usize];
        return Err(parse_error(
            text,
            bytes.len(),
            at,
            &format!(
                "not the {name} form ({} bytes): at byte {at}: expected {expected}, found {found}",
                f.len()
            ),
        ));
    }
    to_py(py, u)
}

/// `format(u, form="hyphenated", *, upper=False)`: `u` (a `uuid.UUID`) as text in
/// `form`, one of `FORMS`. `upper` writes the hex forms' digits in uppercase (the
/// `urn:uuid:` prefix stays lowercase); the compact forms have one spelling each.
///
/// >>> uuidkit.format(uuidkit.NAMESPACE_DNS, "base58")
/// 'EJ34kCVxxF9jHMKD4EgrAK'
/// >>> uuidkit.format(uuidkit.NAMESPACE_DNS, "urn", upper=True)
/// 'urn:uuid:6BA7B810-9DAD-11D1-80B4-00C04FD430C8'
#[pyfunction]
#[pyo3(signature = (u, form=None, *, upper=false))]
pub fn format<'py>(
    u: &Bound<'py, PyAny>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let uuid = bridge::from_py(u, "format", "u")?;
    Ok(Spelling::from_args(form, upper, "format")?.to_py(u.py(), &uuid))
}

//! The scoring engine for the browser: the answer of `POST /api/v1/score` (docs/api.md §5.1),
//! computed by the server's own engine compiled to WebAssembly, so the phone shows the same
//! preview and refuses a wrong hand with the same message, online or offline; and the
//! server's reader of the hand form ([`spades_rules::form`]), so the phone reads what was
//! typed as the server will.
//!
//! It also reads a league's rules form ([`spades_rules::rules_form`]) for the form's live
//! preview: the rules in the words of the rules page.
//!
//! No wasm-bindgen: five exports over the module's memory, UTF-8 JSON both ways.
//! - `alloc(len) -> ptr`: room for a request of `len` bytes, which the caller writes there;
//! - `score(ptr, len) -> u64`: the answer ([`answer`]) to the request at `ptr`, as
//!   `ptr << 32 | len`;
//! - `read_hand(ptr, len) -> u64`: the hand form's reading ([`read_form`]), packed the same;
//! - `describe_rules(ptr, len) -> u64`: the rules form's reading ([`describe_form`]);
//! - `dealloc(ptr, len)`: frees what `alloc` or another export gave, once read.

use serde::{Deserialize, Serialize};
use spades_rules::form::TypedHand;
use spades_rules::hand::HandInput;
use spades_rules::rules_form::{TypedRules, read_rules};
use spades_rules::{ErrorCode, FieldError, score_json, strict};

/// The API's error body (docs/api.md §3): `{"error": {...}}`.
#[derive(Serialize)]
struct ErrorBody {
    error: FieldError,
}

/// The JSON the API answers to a `POST /api/v1/score` whose body is `body`: the scored game,
/// or the error body of a body that is not JSON (`malformed`, the API's 400) or of a request
/// refused (the API's 422). It reads the body as the API does ([`strict::read_body`]), then
/// scores it as the API does ([`score_json`]).
pub fn answer(body: &[u8]) -> String {
    let scored = strict::read_body(body)
        .map_err(|message| FieldError::new(ErrorCode::Malformed, message))
        .and_then(score_json);
    match scored {
        Ok(response) => json(&response),
        Err(error) => json(&ErrorBody { error }),
    }
}

/// What the phone asks the hand form's reader: the form's fields as typed (a FormData's
/// name/value pairs; names that are not a hand's are skipped), the hand's number (for the
/// messages), and whether it is the time-called hand (the console's form has no field for
/// it: the server knows it, the phone's match data says it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FormRequest {
    fields: Vec<(String, String)>,
    number: usize,
    #[serde(default)]
    time_called: bool,
}

/// The reading of a hand form: the hand in the API's shape, or the first thing wrong with the
/// typing in the server's words, with whether some bid or trick count is still blank.
#[derive(Serialize)]
#[serde(untagged)]
enum FormAnswer {
    Read { hand: HandInput },
    Refused { error: FieldError, incomplete: bool },
}

/// The hand form's reading of the request `body` (a [`FormRequest`], JSON), as the server's
/// console reads its posted form: `{"hand": {...}}` (docs/api.md §4.2) or
/// `{"error": {...}, "incomplete": bool}`; a body that does not read is `{"error": {...}}`
/// (`malformed`).
pub fn read_form(body: &[u8]) -> String {
    let request: FormRequest = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) => {
            let error = FieldError::new(ErrorCode::Malformed, e.to_string());
            return json(&ErrorBody { error });
        }
    };
    let mut typed = TypedHand::default();
    for (name, value) in &request.fields {
        typed.set(name, value);
    }
    typed.time_called = request.time_called;
    match typed.to_input(request.number) {
        Ok(hand) => json(&FormAnswer::Read { hand }),
        Err(error) => json(&FormAnswer::Refused {
            error,
            incomplete: typed.is_incomplete(),
        }),
    }
}

/// What the league form's preview asks: a stage's preset and its controls as typed (the
/// fieldset's name/value pairs without the stage's prefix; names that are not controls are
/// skipped).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesRequest {
    preset: String,
    fields: Vec<(String, String)>,
}

/// One line of the rules page.
#[derive(Serialize)]
struct Line {
    topic: &'static str,
    text: String,
}

/// The reading of a rules form: the rules in words and as the API shows them, or the first
/// mistake at its control.
#[derive(Serialize)]
#[serde(untagged)]
enum RulesAnswer {
    Read {
        lines: Vec<Line>,
        rules: spades_rules::Rules,
    },
    Refused {
        error: RulesFormMistake,
    },
}

#[derive(Serialize)]
struct RulesFormMistake {
    control: &'static str,
    message: String,
}

/// The rules form's reading of `body` (a [`RulesRequest`], JSON), as the server reads the
/// posted league form: `{"lines": [{"topic", "text"}], "rules": {...}}`, or
/// `{"error": {"control", "message"}}` (`control` "" for the preset, or a body that does not
/// read).
pub fn describe_form(body: &[u8]) -> String {
    let request: RulesRequest = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) => {
            let error = RulesFormMistake {
                control: "",
                message: e.to_string(),
            };
            return json(&RulesAnswer::Refused { error });
        }
    };
    let mut typed = TypedRules::default();
    for (name, value) in &request.fields {
        typed.set(name, value);
    }
    match read_rules(&request.preset, &typed) {
        Ok((_, rules)) => json(&RulesAnswer::Read {
            lines: spades_rules::describe::describe(&rules)
                .into_iter()
                .map(|l| Line {
                    topic: l.topic,
                    text: l.text,
                })
                .collect(),
            rules,
        }),
        Err(e) => json(&RulesAnswer::Refused {
            error: RulesFormMistake {
                control: e.control,
                message: e.message,
            },
        }),
    }
}

/// `value` as JSON; an `internal` error body if it does not serialize.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| {
        let error = FieldError::new(
            ErrorCode::Internal,
            format!("the answer did not serialize: {e}"),
        );
        format!(
            r#"{{"error":{{"code":"internal","message":{}}}}}"#,
            serde_json::Value::from(error.message)
        )
    })
}

/// The exports, in the module only: the pointer and length of the answer are packed in one
/// `u64`, as a wasm32 pointer is 32 bits.
#[cfg(target_arch = "wasm32")]
mod exports {
    /// Room for `len` bytes, the caller's to fill and then to free with [`dealloc`].
    #[unsafe(no_mangle)]
    pub extern "C" fn alloc(len: usize) -> *mut u8 {
        let mut room = Vec::<u8>::with_capacity(len);
        let ptr = room.as_mut_ptr();
        std::mem::forget(room);
        ptr
    }

    /// Frees `len` bytes at `ptr`.
    ///
    /// # Safety
    /// `ptr` and `len` are exactly what [`alloc`], [`score`] or [`read_hand`] gave, freed once.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
        // `Vec::with_capacity(len)` and a boxed slice of `len` bytes are both exactly `len`.
        drop(unsafe { Vec::from_raw_parts(ptr, 0, len) });
    }

    /// The answer (UTF-8 JSON) to the score request of `len` bytes at `ptr`, as
    /// `ptr << 32 | len`; the caller frees it with [`dealloc`].
    ///
    /// # Safety
    /// `ptr` holds `len` initialized bytes (from [`alloc`]).
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn score(ptr: *const u8, len: usize) -> u64 {
        give(super::answer(unsafe {
            std::slice::from_raw_parts(ptr, len)
        }))
    }

    /// The reading (UTF-8 JSON) of the hand form request of `len` bytes at `ptr`, as
    /// `ptr << 32 | len`; the caller frees it with [`dealloc`].
    ///
    /// # Safety
    /// `ptr` holds `len` initialized bytes (from [`alloc`]).
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn read_hand(ptr: *const u8, len: usize) -> u64 {
        give(super::read_form(unsafe {
            std::slice::from_raw_parts(ptr, len)
        }))
    }

    /// The reading (UTF-8 JSON) of the rules form request of `len` bytes at `ptr`, as
    /// `ptr << 32 | len`; the caller frees it with [`dealloc`].
    ///
    /// # Safety
    /// `ptr` holds `len` initialized bytes (from [`alloc`]).
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn describe_rules(ptr: *const u8, len: usize) -> u64 {
        give(super::describe_form(unsafe {
            std::slice::from_raw_parts(ptr, len)
        }))
    }

    /// `answer`'s bytes handed to the caller, as `ptr << 32 | len`.
    fn give(answer: String) -> u64 {
        let answer = answer.into_bytes().into_boxed_slice();
        let len = answer.len();
        let ptr = Box::into_raw(answer).cast::<u8>();
        ((ptr as usize as u64) << 32) | len as u64
    }
}

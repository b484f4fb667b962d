//! The scoring engine for the browser: the answer of `POST /api/v1/score` (docs/api.md §5.1),
//! computed by the server's own engine compiled to WebAssembly, so the phone shows the same
//! preview and refuses a wrong hand with the same message, online or offline.
//!
//! No wasm-bindgen: three exports over the module's memory, UTF-8 JSON both ways.
//! - `alloc(len) -> ptr`: room for a request of `len` bytes, which the caller writes there;
//! - `score(ptr, len) -> u64`: the answer to the request at `ptr`, as `ptr << 32 | len`;
//! - `dealloc(ptr, len)`: frees what `alloc` or `score` gave, once read.

use serde::Serialize;
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
    let written = match scored {
        Ok(response) => serde_json::to_string(&response),
        Err(error) => serde_json::to_string(&ErrorBody { error }),
    };
    written.unwrap_or_else(|e| {
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
    /// `ptr` and `len` are exactly what [`alloc`] or [`score`] gave, freed once.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
        // `Vec::with_capacity(len)` and a boxed slice of `len` bytes are both exactly `len`.
        drop(unsafe { Vec::from_raw_parts(ptr, 0, len) });
    }

    /// The answer (UTF-8 JSON) to the request of `len` bytes at `ptr`, as `ptr << 32 | len`;
    /// the caller frees it with [`dealloc`].
    ///
    /// # Safety
    /// `ptr` holds `len` initialized bytes (from [`alloc`]).
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn score(ptr: *const u8, len: usize) -> u64 {
        let body = unsafe { std::slice::from_raw_parts(ptr, len) };
        let answer = super::answer(body).into_bytes().into_boxed_slice();
        let len = answer.len();
        let ptr = Box::into_raw(answer).cast::<u8>();
        ((ptr as usize as u64) << 32) | len as u64
    }
}

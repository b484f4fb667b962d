//! How handlers answer: HTML, `no-store` for pages only a logged-in user sees, redirects
//! after a form post, a recorded hand (the API's and the console outbox's), and CSV
//! downloads.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};

use crate::service::night::matches::{AnswerShape, Recorded};
use crate::web::error::{AppError, PageError};

/// An HTML answer.
pub fn html(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body)
}

/// `Cache-Control: no-store` for pages only a logged-in user sees.
pub fn no_store(mut response: HttpResponse) -> HttpResponse {
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}

/// A signed-in user's page, rendered: `no-store`, with `status`.
pub fn private_page(
    status: StatusCode,
    page: impl askama::Template,
) -> Result<HttpResponse, PageError> {
    Ok(no_store(html(status, page.render()?)))
}

/// Where to go after a form post (303), never cached.
pub fn see_other(to: &str) -> HttpResponse {
    no_store(
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, to.to_string()))
            .finish(),
    )
}

/// Whether `request` asks for the light answer: `Prefer: return=minimal` (RFC 7240; among
/// other preferences, any case).
pub fn prefers_minimal(request: &HttpRequest) -> bool {
    request
        .headers()
        .get_all(header::HeaderName::from_static("prefer"))
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| {
            let p = p.split(';').next().unwrap_or_default();
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            k.trim().eq_ignore_ascii_case("return")
                && v.trim().trim_matches('"').eq_ignore_ascii_case("minimal")
        })
}

/// The answer to a recorded hand (docs/api.md §7.3): 201 with the answer in its shape,
/// `Idempotent-Replay: true` when it is a repeated key's first answer, and
/// `Preference-Applied: return=minimal` when it is the light one.
pub fn recorded_hand(recorded: Recorded) -> HttpResponse {
    let (answer, replay) = match recorded {
        Recorded::New(answer) => (answer, false),
        Recorded::Repeat(answer) => (answer, true),
    };
    let mut response = HttpResponse::Created();
    if replay {
        response.insert_header(("Idempotent-Replay", "true"));
    }
    if answer.shape() == AnswerShape::Minimal {
        response.insert_header(("Preference-Applied", "return=minimal"));
    }
    response.json(answer)
}

/// A CSV download (RFC 4180, CRLF line ends) written by the `csv` crate, opening with a
/// UTF-8 byte order mark: without it Excel reads the file in the computer's legacy code page
/// and shows "Équipe" as "Ã‰quipe". A cell a
/// spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`;
/// plain negative numbers stay numbers.
pub struct Csv {
    writer: csv::Writer<Vec<u8>>,
}

impl Csv {
    /// A file whose first row is `header`.
    pub fn with_header<S: AsRef<str>>(header: &[S]) -> Result<Csv, AppError> {
        let mut csv = Csv {
            writer: csv::WriterBuilder::new()
                .terminator(csv::Terminator::CRLF)
                .from_writer(BOM.as_bytes().to_vec()),
        };
        csv.row(header)?;
        Ok(csv)
    }

    pub fn row<S: AsRef<str>>(&mut self, cells: &[S]) -> Result<(), AppError> {
        self.writer
            .write_record(cells.iter().map(|c| defused(c.as_ref()).into_owned()))
            .map_err(|e| AppError::Internal(format!("csv: {e}")))
    }

    /// The file as a download named `filename`.
    pub fn download(self, filename: &str) -> Result<HttpResponse, AppError> {
        let body = self
            .writer
            .into_inner()
            .map_err(|e| AppError::Internal(format!("csv: {e}")))?;
        Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ))
            .body(body))
    }
}

/// The UTF-8 byte order mark every CSV file starts with.
pub const BOM: &str = "\u{feff}";

/// A plain number (what a spreadsheet may read as one): `-40`, `0.750`.
fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let mut parts = digits.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let frac = parts.next();
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// `value` as a spreadsheet should show it: text, never a formula.
fn defused(value: &str) -> std::borrow::Cow<'_, str> {
    if value.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_number(value) {
        format!("'{value}").into()
    } else {
        value.into()
    }
}

#[cfg(test)]
mod tests {
    use super::{BOM, Csv, defused, is_number};

    /// The file of one row, after its byte order mark.
    fn line(cells: &[&str]) -> String {
        let csv = Csv::with_header(cells).unwrap();
        let file = String::from_utf8(csv.writer.into_inner().unwrap()).unwrap();
        file.strip_prefix(BOM)
            .expect("a byte order mark first")
            .to_string()
    }

    #[test]
    fn a_file_opens_with_the_byte_order_mark_once_and_accents_read_back() {
        let mut csv = Csv::with_header(&["team"]).unwrap();
        csv.row(&["Équipe Señor"]).unwrap();
        let bytes = csv.writer.into_inner().unwrap();
        assert_eq!(&bytes[..3], [0xEF, 0xBB, 0xBF]);
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.matches(BOM).count(), 1);
        let rows: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
            .from_reader(text.as_bytes())
            .records()
            .map(Result::unwrap)
            .collect();
        assert_eq!(&rows[0][0], "Équipe Señor");
    }

    #[test]
    fn cells_are_quoted_and_defused() {
        assert_eq!(line(&["Aces", "-40", "0.750"]), "Aces,-40,0.750\r\n");
        assert_eq!(line(&["=1+2", "+1", "-1+2"]), "'=1+2,'+1,'-1+2\r\n");
        assert_eq!(line(&["@SUM(A1)", "a,b"]), "'@SUM(A1),\"a,b\"\r\n");
        assert_eq!(
            line(&["say \"hi\"", "two\nlines"]),
            "\"say \"\"hi\"\"\",\"two\nlines\"\r\n"
        );
        assert_eq!(
            line(&["=HYPERLINK(\"x\",1)"]),
            "\"'=HYPERLINK(\"\"x\"\",1)\"\r\n"
        );
        assert_eq!(defused("plain"), "plain");
        assert!(is_number("12") && is_number("-3.5") && !is_number("-") && !is_number("1."));
    }
}

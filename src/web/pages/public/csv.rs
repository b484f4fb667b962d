//! CSV downloads (RFC 4180), safe to open in a spreadsheet: the standings, a scoresheet and
//! the bracket (`api::playoffs`).

use actix_web::HttpResponse;
use actix_web::http::header;

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

/// One CSV field (RFC 4180): a cell a spreadsheet would read as a formula gets a leading
/// `'` (plain negative numbers stay numbers); quoted when it holds a comma, quote or line
/// break.
pub fn csv_cell(value: &str) -> String {
    let mut v = value.to_string();
    if v.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_number(&v) {
        v.insert(0, '\'');
    }
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

/// One line of CSV, ending with CRLF.
pub fn csv_row<S: AsRef<str>>(cells: &[S]) -> String {
    let mut line = cells
        .iter()
        .map(|c| csv_cell(c.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push_str("\r\n");
    line
}

/// A CSV download named `filename`.
pub fn csv_response(filename: &str, body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::{csv_cell, is_number};

    #[test]
    fn csv_cells_are_escaped_and_defused() {
        assert_eq!(csv_cell("Aces"), "Aces");
        assert_eq!(csv_cell("-40"), "-40");
        assert_eq!(csv_cell("0.750"), "0.750");
        assert_eq!(csv_cell("=1+2"), "'=1+2");
        assert_eq!(csv_cell("+1"), "'+1");
        assert_eq!(csv_cell("-1+2"), "'-1+2");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(
            csv_cell("=HYPERLINK(\"x\",1)"),
            "\"'=HYPERLINK(\"\"x\"\",1)\""
        );
        assert!(is_number("12") && is_number("-3.5") && !is_number("-") && !is_number("1."));
    }
}

//! What a request under `/api/` gets when no route took it: a 405 with `Allow` when its path
//! is one of the OpenAPI document's paths (so another method answers it), else a 404; both
//! in the JSON error shape. The document is the one list of routes: nothing here is kept by
//! hand.

use std::sync::LazyLock;

use actix_web::http::Method;
use utoipa::OpenApi;

use super::openapi::ApiDoc;
use crate::web::error::AppError;
use crate::web::page_routes::path_matches;

/// A path of the document (`{id}` stands for any one segment), and the methods that answer
/// it, `HEAD` included wherever `GET` is.
struct Template {
    path: String,
    methods: Vec<&'static str>,
}

impl Template {
    fn matches(&self, path: &str) -> bool {
        path_matches(&self.path, path)
    }
}

static TEMPLATES: LazyLock<Vec<Template>> = LazyLock::new(|| {
    ApiDoc::openapi()
        .paths
        .paths
        .iter()
        .map(|(path, item)| {
            let declared = [
                ("GET", &item.get),
                ("HEAD", &item.head),
                ("POST", &item.post),
                ("PUT", &item.put),
                ("PATCH", &item.patch),
                ("DELETE", &item.delete),
                ("OPTIONS", &item.options),
                ("TRACE", &item.trace),
            ];
            let mut methods: Vec<&'static str> = declared
                .iter()
                .filter(|(_, operation)| operation.is_some())
                .map(|(method, _)| *method)
                .collect();
            if methods.contains(&"GET") && !methods.contains(&"HEAD") {
                methods.insert(1, "HEAD");
            }
            Template {
                path: path.clone(),
                methods,
            }
        })
        .collect()
});

/// The methods that answer `path` (in the document's order), or `None` for a path the API
/// does not have.
pub fn allowed_methods(path: &str) -> Option<Vec<&'static str>> {
    // A path the document names as it is (`/api/v1/leagues/import`) is that path alone: no
    // league can have a reserved slug, so `/api/v1/leagues/{slug}` does not answer it.
    if let Some(exact) = TEMPLATES.iter().find(|t| t.path == path) {
        return Some(exact.methods.clone());
    }
    let mut allowed: Vec<&'static str> = Vec::new();
    for template in TEMPLATES.iter().filter(|t| t.matches(path)) {
        for method in &template.methods {
            if !allowed.contains(method) {
                allowed.push(method);
            }
        }
    }
    (!allowed.is_empty()).then_some(allowed)
}

/// Why no route answered `method` on `path`: 405 (with the methods that do) for a path of
/// the API, else 404.
pub fn unrouted(method: &Method, path: &str) -> AppError {
    AppError::unrouted(method, allowed_methods(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_the_document_and_their_methods() {
        assert_eq!(
            allowed_methods("/api/v1/leagues"),
            Some(vec!["GET", "HEAD", "POST"])
        );
        assert_eq!(
            allowed_methods("/api/v1/matches/12/hands/3"),
            Some(vec!["PUT"])
        );
        assert_eq!(
            allowed_methods("/api/v1/matches/abc"),
            Some(vec!["GET", "HEAD", "PATCH", "DELETE"])
        );
        assert_eq!(allowed_methods("/api/v1/score"), Some(vec!["POST"]));
        assert_eq!(
            allowed_methods("/api/v1/leagues/import"),
            Some(vec!["POST"])
        );
        assert_eq!(
            allowed_methods("/api/v1/leagues/fall/bracket/schedule"),
            Some(vec!["POST"])
        );
        assert_eq!(allowed_methods("/api/v1/nothing"), None);
        assert_eq!(allowed_methods("/api/v1/matches/"), None);
        assert_eq!(allowed_methods("/api/v1/matches/1/hands/2/3"), None);
        assert_eq!(allowed_methods("/api/v1/leagues/"), None);
    }

    #[test]
    fn a_wrong_method_is_405_and_an_unknown_path_404() {
        assert!(matches!(
            unrouted(&Method::DELETE, "/api/v1/leagues"),
            AppError::MethodNotAllowed(m) if m == ["GET", "HEAD", "POST"]
        ));
        assert!(matches!(
            unrouted(&Method::GET, "/api/v1/nothing"),
            AppError::NotFound
        ));
        // A declared method that no route took (it cannot happen, but it is not a 405).
        assert!(matches!(
            unrouted(&Method::GET, "/api/v1/leagues"),
            AppError::NotFound
        ));
    }
}

//! The web page served at `/`: play Bi-litaire, Pylos and backgammon against the engine and
//! analyse positions. Plain HTML, CSS and JavaScript in `server/web/`, compiled into the binary
//! (no build step, nothing fetched from elsewhere); the page only calls this server's API.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// The page.
pub const INDEX_HTML: &str = include_str!("../web/index.html");
/// Its script: the boards drawn in SVG, the clicks, the calls to the API.
pub const APP_JS: &str = include_str!("../web/app.js");
/// Its style sheet.
pub const STYLE_CSS: &str = include_str!("../web/style.css");

/// The page's content security policy: everything from this server, nothing inline but
/// styles set from the script, no other origin.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                   script-src 'self'; connect-src 'self'; object-src 'none'; \
                   base-uri 'none'; frame-ancestors 'none'";

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

/// `GET /`.
pub(crate) async fn index() -> Response {
    asset(INDEX_HTML, "text/html; charset=utf-8")
}

/// `GET /static/app.js`.
pub(crate) async fn app_js() -> Response {
    asset(APP_JS, "text/javascript; charset=utf-8")
}

/// `GET /static/style.css`.
pub(crate) async fn style_css() -> Response {
    asset(STYLE_CSS, "text/css; charset=utf-8")
}

//! The page, its script and style sheet, compiled into the binary: the board needs nothing from
//! the internet and no files beside the program.

use axum::http::header;
use axum::response::{IntoResponse, Response};

const PAGE: &str = include_str!("web/index.html");
const SCRIPT: &str = include_str!("web/app.js");
const STYLE: &str = include_str!("web/style.css");

/// Serves the page, as HTML.
pub fn page() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response()
}

/// Serves the page's script, as JavaScript.
pub fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response()
}

/// Serves the page's style sheet, as CSS.
pub fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

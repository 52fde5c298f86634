//! The routes: the page and its assets, and the JSON API. Every computation runs on tokio's
//! blocking pool, so reading tables from disk never stalls the connections' tasks.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value as Json, json};

use super::api::{Api, ApiError, Params};
use super::assets;

/// What the page may load: its own script, style sheet and answers, and the icon it declares
/// inline; and no other site may show it in a frame.
const CONTENT_POLICY: &str = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

/// The application: the page at `/`, its assets, and the API under `/api/`. `local_only`: a
/// server bound to a loopback address answers only requests addressed to a loopback name, so
/// that a web page elsewhere cannot reach it under a name of its own (DNS rebinding).
pub fn router(api: Arc<Api>, local_only: bool) -> Router {
    Router::new()
        .route("/", get(|| async { assets::page() }))
        .route("/app.js", get(|| async { assets::script() }))
        .route("/style.css", get(|| async { assets::style() }))
        .route("/api/games", get(games))
        .route("/api/tables", get(tables))
        .route("/api/{game}", get(position))
        .route("/api/{game}/mainline", get(mainline))
        .route("/api/{game}/stats/{material}", get(stats))
        .route("/api/{game}/random/{material}", get(random))
        // After the routes: it applies to those present when it is added.
        .method_not_allowed_fallback(not_allowed)
        .fallback(not_found)
        .layer(middleware::from_fn(move |request, next| {
            guard(local_only, request, next)
        }))
        .with_state(api)
}

/// Refuses a request for another host where the server is `local_only`, and marks every answer
/// as what its type says (no sniffing) under the page's content policy.
async fn guard(local_only: bool, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    let mut response = match host {
        Some(host) if !local_only || is_loopback_name(host) => next.run(request).await,
        _ => error(ApiError {
            status: 403,
            message: format!(
                "a request for host '{}' refused: this server is bound to a loopback address and \
                 answers localhost only (egtb serve --bind 0.0.0.0 serves other names)",
                host.unwrap_or("").chars().take(64).collect::<String>()
            ),
        }),
    };
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_POLICY),
    );
    response
}

/// Whether a Host header names this machine by a loopback name: `localhost`, `127.0.0.1`,
/// `[::1]`, with or without a port.
fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The segments of a route's path, or a JSON error where they are not text (`%FF`).
fn segments<T>(path: Result<Path<T>, PathRejection>) -> Result<T, ApiError> {
    path.map(|Path(segments)| segments)
        .map_err(|rejection| ApiError::bad_request(rejection.body_text()))
}

async fn games(State(api): State<Arc<Api>>, RawQuery(query): RawQuery) -> Response {
    answer(move || {
        Params::none(query.as_deref())?;
        api.games()
    })
    .await
}

async fn tables(State(api): State<Arc<Api>>, RawQuery(query): RawQuery) -> Response {
    answer(move || {
        Params::none(query.as_deref())?;
        api.tables()
    })
    .await
}

async fn position(
    State(api): State<Arc<Api>>,
    game: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let game = segments(game);
    answer(move || api.position(Api::game(&game?)?, &Params::parse(query.as_deref())?)).await
}

async fn mainline(
    State(api): State<Arc<Api>>,
    game: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let game = segments(game);
    answer(move || api.mainline(Api::game(&game?)?, &Params::parse(query.as_deref())?)).await
}

async fn stats(
    State(api): State<Arc<Api>>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let path = segments(path);
    answer(move || {
        let (game, material) = path?;
        api.stats(Api::game(&game)?, &material, &Params::parse(query.as_deref())?)
    })
    .await
}

async fn random(
    State(api): State<Arc<Api>>,
    path: Result<Path<(String, String)>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let path = segments(path);
    answer(move || {
        let (game, material) = path?;
        api.random(Api::game(&game)?, &material, &Params::parse(query.as_deref())?)
    })
    .await
}

async fn not_found(uri: Uri) -> Response {
    let path: String = uri.path().chars().take(64).collect();
    error(ApiError::not_found(format!("no such page: {path}")))
}

/// Another method than GET on a route: a JSON error like every other, not an empty body.
async fn not_allowed(method: Method) -> Response {
    error(ApiError {
        status: 405,
        message: format!("method {method} not allowed: the API answers GET"),
    })
}

/// Runs an API call on the blocking pool and turns its result into a JSON response.
async fn answer(call: impl FnOnce() -> Result<Json, ApiError> + Send + 'static) -> Response {
    match tokio::task::spawn_blocking(call).await {
        Ok(Ok(body)) => ([(header::CACHE_CONTROL, "no-store")], axum::Json(body)).into_response(),
        Ok(Err(e)) => error(e),
        Err(e) => error(ApiError {
            status: 500,
            message: format!("internal error: {e}"),
        }),
    }
}

fn error(e: ApiError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(json!({ "error": e.message }))).into_response()
}

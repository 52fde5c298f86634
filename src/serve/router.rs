//! The routes: the page and its assets, and the JSON API. Every computation runs on tokio's
//! blocking pool, so reading tables from disk never stalls the connections' tasks.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value as Json, json};

use super::api::{Api, ApiError, Params};
use super::assets;

/// The application: the page at `/`, its assets, and the API under `/api/`.
pub fn router(api: Arc<Api>) -> Router {
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
        .with_state(api)
}

async fn games(State(api): State<Arc<Api>>) -> Response {
    answer(move || api.games()).await
}

async fn tables(State(api): State<Arc<Api>>) -> Response {
    answer(move || api.tables()).await
}

async fn position(State(api): State<Arc<Api>>, Path(game): Path<String>, RawQuery(query): RawQuery) -> Response {
    answer(move || api.position(Api::game(&game)?, &Params::parse(query.as_deref())?)).await
}

async fn mainline(State(api): State<Arc<Api>>, Path(game): Path<String>, RawQuery(query): RawQuery) -> Response {
    answer(move || api.mainline(Api::game(&game)?, &Params::parse(query.as_deref())?)).await
}

async fn stats(
    State(api): State<Arc<Api>>,
    Path((game, material)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    answer(move || api.stats(Api::game(&game)?, &material, &Params::parse(query.as_deref())?)).await
}

async fn random(
    State(api): State<Arc<Api>>,
    Path((game, material)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    answer(move || api.random(Api::game(&game)?, &material, &Params::parse(query.as_deref())?)).await
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

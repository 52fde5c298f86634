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

/// The host names a server answers requests for.
#[derive(Clone, Debug)]
pub enum Hosts {
    /// Every name: a server bound to an address others reach.
    Any,
    /// Its loopback names and these: a server bound to a loopback address, which a web page
    /// elsewhere must not reach under a name of its own (DNS rebinding).
    Loopback(Vec<String>),
}

impl Hosts {
    /// Whether a Host header names this server: `localhost` (and `*.localhost`), a loopback
    /// address, or a name allowed, with or without a port.
    fn allow(&self, host: &str) -> bool {
        let Hosts::Loopback(allowed) = self else {
            return true;
        };
        let (name, after) = match host.strip_prefix('[') {
            Some(bracketed) => bracketed.split_once(']').unwrap_or(("", "unclosed")),
            None => host.find(':').map_or((host, ""), |at| host.split_at(at)),
        };
        let port = after.strip_prefix(':').unwrap_or(after);
        if !(after.is_empty() || !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())) {
            return false;
        }
        let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
        name == "localhost"
            || name.ends_with(".localhost")
            || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
            || allowed.iter().any(|a| a.eq_ignore_ascii_case(&name))
    }

    /// Why a request for `host` (`None`: no Host header) is refused, naming what is answered.
    fn refusal(&self, host: Option<&str>) -> String {
        let asked = match host {
            Some(host) => format!("a request for host '{}'", host.chars().take(64).collect::<String>()),
            None => "a request without a Host header".to_string(),
        };
        let answered = match self {
            Hosts::Loopback(allowed) if !allowed.is_empty() => format!("localhost and {} only", allowed.join(", ")),
            _ => "localhost only (a proxy's name: egtb serve --allow-host NAME)".to_string(),
        };
        format!("{asked} refused: this server is bound to a loopback address and answers {answered}")
    }
}

/// A host name as `--allow-host` gives it, in the form a Host header's name is compared in:
/// lower case, without a trailing dot; an error for a name with a port or other words.
pub fn allowed_host(name: &str) -> anyhow::Result<String> {
    let name = name
        .trim()
        .strip_suffix('.')
        .unwrap_or(name.trim())
        .to_ascii_lowercase();
    let plain = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
    if name.is_empty() || !name.bytes().all(plain) {
        anyhow::bail!(
            "--allow-host '{name}' is no host name: give the name alone, without a port (for example tables.example.org)"
        );
    }
    Ok(name)
}

/// The application: the page at `/`, its assets, and the API under `/api/`, answering requests
/// for the `hosts` named.
pub fn router(api: Arc<Api>, hosts: Hosts) -> Router {
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
            guard(hosts.clone(), request, next)
        }))
        .with_state(api)
}

/// Refuses a request for a host the server does not answer, and marks every answer as what
/// its type says (no sniffing) under the page's content policy.
async fn guard(hosts: Hosts, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    let mut response = match host {
        Some(host) if hosts.allow(host) => next.run(request).await,
        _ => error(ApiError {
            status: 403,
            message: hosts.refusal(host),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_server_answers_its_loopback_names_and_those_allowed_only() {
        let loopback = Hosts::Loopback(vec!["Tables.Example.org".into()]);
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "localhost.",
            "app.localhost:3000",
            "127.0.0.1",
            "127.0.0.2:80",
            "[::1]",
            "[::1]:8080",
            "tables.example.org:443",
        ] {
            assert!(loopback.allow(host), "{host} refused");
            assert!(Hosts::Any.allow(host), "{host} refused");
        }
        for host in [
            "",
            "attacker.example",
            "attacker.example:8080",
            "127.0.0.1.attacker.example",
            "localhost.attacker.example",
            "[::1]evil.example",
            "[::1",
            "127.0.0.1:evil",
            "localhost:",
            "other.example.org",
        ] {
            assert!(!loopback.allow(host), "{host} answered");
            assert!(Hosts::Any.allow(host), "{host} refused on every address");
        }
        let refused = loopback.refusal(Some("attacker.example"));
        assert!(
            refused.ends_with("answers localhost and Tables.Example.org only"),
            "{refused}"
        );
        let refused = Hosts::Loopback(Vec::new()).refusal(None);
        assert!(
            refused.starts_with("a request without a Host header refused"),
            "{refused}"
        );
        assert!(refused.contains("--allow-host NAME"), "{refused}");
    }

    #[test]
    fn allowed_host_names_are_compared_as_a_host_header_names_them() {
        assert_eq!(allowed_host(" Tables.Example.org. ").unwrap(), "tables.example.org");
        for bad in ["proxy.example:8443", "[::1]", "", "a b", "http://proxy.example"] {
            let error = allowed_host(bad).unwrap_err().to_string();
            assert!(error.contains("is no host name"), "{bad}: {error}");
        }
        let allowed = Hosts::Loopback(vec![allowed_host("Other.Example.").unwrap()]);
        assert!(allowed.allow("other.example:443"));
    }
}
